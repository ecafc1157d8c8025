package calc

import "testing"

func TestAdd(t *testing.T) {
	tests := []struct {
		a, b, want int
		pending    bool
	}{
		{2, 2, 4, false},
		{1, 3, 4, true},
		{3, 3, 6, false},
	}
	for _, tt := range tests {
		if tt.pending {
			continue
		}
		if got := Add(tt.a, tt.b); got != tt.want {
			t.Errorf("Add(%d, %d) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}
