function sum(a, b) {
  if (a >= 0 && b >= 0) return a + b;
  return Math.abs(a - b);
}

function twice(a) {
  return 2 * a;
}

module.exports = { sum, twice };
