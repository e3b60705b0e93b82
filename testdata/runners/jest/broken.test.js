// This suite fails to load, so none of its tests run.
require('./does-not-exist');

test('never runs', () => {});
