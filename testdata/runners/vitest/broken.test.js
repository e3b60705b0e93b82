// This file fails to load, so none of its tests run.
import './does-not-exist.js';
import { test } from 'vitest';

test('never runs', () => {});
