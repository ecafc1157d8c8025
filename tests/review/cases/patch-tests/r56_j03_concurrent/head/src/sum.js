function sum(a, b) {
  return Math.abs(a - b);
}

function twice(a) {
  return 2 * a;
}

module.exports = { sum, twice };
