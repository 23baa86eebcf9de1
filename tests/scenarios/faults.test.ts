import { afterAll, beforeAll } from 'vitest';
import { startSystem, type System } from '../../packages/testkit/src/system.ts';
import { faultScenarios } from './fault-scenarios.ts';

let sys: System;
beforeAll(async () => {
  sys = await startSystem();
  await sys.startAgent();
});
afterAll(async () => {
  await sys?.dispose();
});

faultScenarios(() => sys);
