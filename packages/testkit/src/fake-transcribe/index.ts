export { type FakeTranscribe, type FakeTranscribeOptions, startFakeTranscribe, type TranscribeBehaviour, type TranscribeRequest } from './server.ts';
export { oggCrc, oggOpusSilence, readOggPages } from './ogg-opus.ts';
