package calc

import "testing"

func TestAddZero(t *testing.T) {
	type testCase struct {
		a, b, want int
	}
	for _, tt := range []testCase{{0, 0, 0}} {
		if got := Add(tt.a, tt.b); got != tt.want {
			t.Errorf("Add(%d, %d) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}

func TestAdd(t *testing.T) {
	type testCase struct {
		b, a, want int
	}
	tests := []testCase{
		{2, 2, 4},
		{1, 3, 6},
	}
	for _, tt := range tests {
		if got := Add(tt.a, tt.b); got != tt.want {
			t.Errorf("Add(%d, %d) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}
