package calc

import (
	"os"
	"testing"
)

func TestAdd(t *testing.T) {
	if got := Add(2, 3); got != 5 {
		t.Errorf("Add(2, 3) = %d, want 5", got)
	}
}

func TestSumAlias(t *testing.T) {
	if Add(4, 5) != Sum(4, 5) {
		t.Errorf("Add(4, 5) = %d, Sum(4, 5) = %d", Add(4, 5), Sum(4, 5))
	}
}

// Needs the team's database (CI sets DATABASE_URL).
func TestDatabaseAdd(t *testing.T) {
	if os.Getenv("DATABASE_URL") == "" {
		t.Fatal("DATABASE_URL is not set")
	}
	if got := Add(1, 1); got != 2 {
		t.Errorf("Add(1, 1) = %d, want 2", got)
	}
}
