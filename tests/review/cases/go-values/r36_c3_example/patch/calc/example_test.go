package calc

import "fmt"

func ExampleAdd() {
	fmt.Println(Add(2, 2))
	fmt.Println(Add(3, 3))
	// Output:
	// 4
	// 6
}
