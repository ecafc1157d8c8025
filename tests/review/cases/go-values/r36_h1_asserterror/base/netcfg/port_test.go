package netcfg

import (
	"testing"

	"example.com/svc/internal/assert"
)

func TestValidatePort(t *testing.T) {
	assert.NoError(t, ValidatePort(8080))
	err := ValidatePort(70000)
	assert.Error(t, err)
}
