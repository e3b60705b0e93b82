// A tiny module for the coverage reports: some of its lines never run.
function add(a, b) {
  return a + b;
}

function divide(a, b) {
  if (b === 0) {
    throw new Error('b must not be 0');
  }
  return a / b;
}

module.exports = { add, divide };
