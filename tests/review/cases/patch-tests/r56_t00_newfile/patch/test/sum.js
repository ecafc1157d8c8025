const test = require('tape');
const sum = require('../sum');

test('adds numbers', (t) => {
  t.equal(sum(20, 30), 50);
  t.end();
});

test('adds zero', (t) => {
  t.equal(sum(0, 0), 0);
  t.end();
});
