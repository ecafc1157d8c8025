const test = require('node:test');
const assert = require('node:assert');
const sum = require('../sum');
const { sumCase } = require('./test-utils');

test('adds numbers', () => {
  sumCase(sum, 2, 3, 5);
  sumCase(sum, -1, -2, -3);
});

test('adds zero', () => {
  assert.strictEqual(sum(0, 0), 0);
});
