import { afterAll, beforeAll } from 'vitest';
import { startSystem, type System } from '../../packages/testkit/src/system.ts';
import { lifecycleScenarios } from './lifecycle-scenarios.ts';

let sys: System;
beforeAll(async () => {
  sys = await startSystem();
  await sys.startAgent();
});
afterAll(async () => {
  await sys?.dispose();
});

lifecycleScenarios(() => sys);
