import { describe, expect, it } from 'vitest';
import { hubListen, parseWebEnv, telegramBotOn } from './env.ts';

const base = { DATABASE_URL: 'postgresql://bria@127.0.0.1:5432/bria' };

describe('the dashboard reads the configuration the server runs with', () => {
  it('shows bot settings when the launcher says it started the bot, and not when it says it did not', () => {
    expect(telegramBotOn(parseWebEnv({ ...base, BRIA_TELEGRAM_BOT: '1', TELEGRAM_BOT_TOKEN: '123456:abcdefghij' }))).toBe(true);
    // The launcher's record wins over a token it did not start a bot with.
    expect(telegramBotOn(parseWebEnv({ ...base, BRIA_TELEGRAM_BOT: '0', TELEGRAM_BOT_TOKEN: '123456:abcdefghij' }))).toBe(false);
    expect(telegramBotOn(parseWebEnv({ ...base, BRIA_TELEGRAM_BOT: '1' }))).toBe(true);
  });

  it('without the launcher, the bot runs exactly when TELEGRAM_BOT_TOKEN is set and not blank', () => {
    expect(telegramBotOn(parseWebEnv({ ...base, TELEGRAM_BOT_TOKEN: '123456:abcdefghij' }))).toBe(true);
    expect(telegramBotOn(parseWebEnv(base))).toBe(false);
    expect(telegramBotOn(parseWebEnv({ ...base, TELEGRAM_BOT_TOKEN: '' }))).toBe(false);
    expect(telegramBotOn(parseWebEnv({ ...base, TELEGRAM_BOT_TOKEN: '   ' }))).toBe(false);
  });

  it('knows where the hub listens the way the hub decides it', () => {
    expect(hubListen(parseWebEnv(base))).toEqual({ host: '127.0.0.1', variable: 'BRIA_HOST', urlConfigured: false });
    expect(hubListen(parseWebEnv({ ...base, BRIA_HOST: '0.0.0.0' }))).toEqual({ host: '0.0.0.0', variable: 'BRIA_HOST', urlConfigured: false });
    expect(hubListen(parseWebEnv({ ...base, BRIA_HOST: '0.0.0.0', BRIA_HUB_HOST: '127.0.0.1', BRIA_HUB_PUBLIC_URL: 'wss://bria.example.net/agent' }))).toEqual({
      host: '127.0.0.1',
      variable: 'BRIA_HUB_HOST',
      urlConfigured: true,
    });
  });
});
