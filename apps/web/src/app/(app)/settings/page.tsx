import { SettingsForm } from '../../../components/settings-form.tsx';
import { requireSession } from '../../../server/session.ts';

export const dynamic = 'force-dynamic';

export default async function SettingsPage() {
  await requireSession();
  return <SettingsForm />;
}
