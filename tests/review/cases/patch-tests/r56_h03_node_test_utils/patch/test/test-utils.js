// Shared helpers for the tests.
const assert = require('node:assert');

function sumCase(sum, a, b, want) {
  assert.strictEqual(sum(a, b), want, `sum(${a}, ${b}) is ${want}`);
}

module.exports = { sumCase };
