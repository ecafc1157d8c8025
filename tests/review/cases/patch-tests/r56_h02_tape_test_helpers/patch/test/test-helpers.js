// Shared helpers for the tape tests.
function sumCase(t, sum, a, b, want) {
  t.equal(sum(a, b), want, `sum(${a}, ${b}) is ${want}`);
}

module.exports = { sumCase };
