export { type TranscribeInput, type TranscribeResult, transcribeAudio } from './transcribe-audio.ts';
export * from './voice-notes.ts';
