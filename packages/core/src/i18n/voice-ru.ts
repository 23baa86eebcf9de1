import type { voiceEn } from './voice-en.ts';

/** Голосовые сообщения и их расшифровки (docs/voice.md), по-русски; входит в `ru.ts`. */
export const voiceRu: Record<keyof typeof voiceEn, string> = {
  'voice.transcript': 'Расшифровка:\n{text}\n\nОтправьте её в сессию как есть, сначала исправьте или отмените.',
  'voice.sent': 'Отправлено в очередь (#{seq}):\n{text}',
  'voice.sentFile': 'Запись ушла в очередь файлом (#{seq}).',
  'voice.alreadySent': 'Уже отправлено.',
  'voice.cancelled': 'Расшифровка отброшена. Запись остаётся сохранённой в сессии.',
  'voice.alreadyCancelled': 'Уже отброшено.',
  'voice.notApplicable': 'Эта кнопка больше не действует.',
  'voice.editAsk': 'Пришлите исправленный текст следующим сообщением: он уйдёт в сессию вместо расшифровки.',
  'voice.kept':
    'Голосовое сообщение сохранено в сессии как аудиофайл ({size}). Расшифровка выключена: задайте BRIA_TRANSCRIBE_URL (и BRIA_TRANSCRIBE_KEY для OpenAI) там, где работает Bria, и перезапустите её; см. docs/voice.md.',
  'voice.failed': 'Не расшифровано: {reason}{words}\nЗапись сохранена в сессии. {advice}',
  'voice.words': ' Ответ сервиса: «{words}».',
  'voice.adviceFile': 'Её можно отправить в CLI файлом кнопкой ниже.',
  'voice.adviceNoFile': 'Она слишком велика, чтобы отправить её в CLI файлом (больше {limit}).',
  'voice.tooBig': 'Не сохранено: запись больше {limit} — столько бот может скачать из Telegram.',
  'voice.why.timeout': 'сервис расшифровки не ответил вовремя. Попробуйте позже.',
  'voice.why.key_refused': 'сервис расшифровки не принял ключ. Проверьте BRIA_TRANSCRIBE_KEY.',
  'voice.why.too_large': 'запись слишком велика для сервиса расшифровки (не больше 25 МБ).',
  'voice.why.rate_limited': 'сервис расшифровки ограничивает запросы (429). Попробуйте через минуту.',
  'voice.why.service_error': 'у сервиса расшифровки ошибка на его стороне. Попробуйте позже.',
  'voice.why.unreachable': 'сервис расшифровки недоступен. Проверьте BRIA_TRANSCRIBE_URL и что сервер запущен.',
  'voice.why.refused': 'сервис расшифровки отклонил запрос. Проверьте BRIA_TRANSCRIBE_MODEL.',
  'voice.why.bad_answer': 'сервис расшифровки ответил не расшифровкой. Проверьте BRIA_TRANSCRIBE_URL.',
  'voice.why.no_speech': 'в записи не слышно слов.',
  'button.voiceSend': 'Отправить',
  'button.voiceEdit': 'Исправить',
  'button.voiceCancel': 'Отменить',
  'button.voiceFile': 'Отправить файлом',
};
