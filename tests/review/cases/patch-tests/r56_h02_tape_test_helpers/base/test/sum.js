const test = require('tape');
const sum = require('../sum');
const { sumCase } = require('./test-helpers');

test('adds numbers', (t) => {
  sumCase(t, sum, 2, 3, 5);
  sumCase(t, sum, -1, -2, -3);
  t.end();
});

test('adds zero', (t) => {
  t.equal(sum(0, 0), 0);
  t.end();
});
