export { getSettings, updateSettings, type SettingsDto } from './settings.ts';
