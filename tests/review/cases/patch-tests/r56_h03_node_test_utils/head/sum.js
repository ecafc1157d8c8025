module.exports = (a, b) => a + b + (a > 0 ? 1 : 0);
module.exports.twice = (a) => 2 * a;
module.exports.half = (a) => a / 2;
module.exports.thrice = (a) => 3 * a;
module.exports.negate = (a) => -a;
