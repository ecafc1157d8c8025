// Package assert holds the small testify-style assertions our tests use.
package assert

import (
	"reflect"
	"testing"
)

// Equal fails the test when got and want differ.
func Equal(t testing.TB, want, got interface{}) bool {
	t.Helper()
	if !reflect.DeepEqual(want, got) {
		t.Errorf("not equal: want %#v, got %#v", want, got)
		return false
	}
	return true
}

// NoError fails the test when err is not nil.
func NoError(t testing.TB, err error) bool {
	t.Helper()
	if err != nil {
		t.Errorf("unexpected error: %v", err)
		return false
	}
	return true
}

// Error fails the test when err is nil.
func Error(t testing.TB, err error) bool {
	t.Helper()
	if err == nil {
		t.Errorf("an error is expected but got nil")
		return false
	}
	return true
}
