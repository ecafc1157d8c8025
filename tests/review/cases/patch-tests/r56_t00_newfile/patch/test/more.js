const test = require('tape');
const sum = require('../sum');

test('adds negatives', (t) => {
  t.equal(sum(-1, -2), -3);
  t.end();
});
