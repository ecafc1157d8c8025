package netcfg

import (
	"testing"

	"example.com/svc/internal/assert"
)

func TestValidatePort(t *testing.T) {
	assert.NoError(t, ValidatePort(8080))
	assert.NoError(t, ValidatePort(65535))
	assert.Error(t, ValidatePort(65536))
	assert.Error(t, ValidatePort(70000))
}
