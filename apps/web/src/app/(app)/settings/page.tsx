import { SettingsForm } from '../../../components/settings-form.tsx';
import { telegramBotOn, webEnv } from '../../../env.ts';
import { requireSession } from '../../../server/session.ts';

export const dynamic = 'force-dynamic';

export default async function SettingsPage() {
  await requireSession();
  return <SettingsForm botOn={telegramBotOn(webEnv())} />;
}
