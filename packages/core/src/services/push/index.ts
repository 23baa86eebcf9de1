export * from './push-devices.ts';
export * from './push-settings.ts';
export * from './push-answer.ts';
