// Shared helpers for the tape tests.
function sumCase(t, sum, a, b, want) {
  t.equal(sum(a, b), want);
}

module.exports = { sumCase };
