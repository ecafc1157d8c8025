package calc

import "fmt"

func ExampleAdd() {
	fmt.Println(Add(2, 2))
	fmt.Println(Add(1, 3))
	// Output:
	// 4
	// 4
}
