import { useSession, useUser } from '../shell/session';
import { ConfirmDialog } from './confirm-dialog';

/** "Sign out everywhere" ends every session of this person, so it asks first (issue 35); the layout opens it. */
export function SignOutEverywhereDialog({ onClose }: { onClose: () => void }) {
  const user = useUser();
  const { signOut } = useSession();
  return (
    <ConfirmDialog title="Sign out everywhere?" confirmLabel="Sign out everywhere" danger onConfirm={() => signOut(true)} onClose={onClose}>
      <p>This ends every session of {user.email ?? user.name}: on this device and in every other browser signed in as you. API keys keep working.</p>
    </ConfirmDialog>
  );
}
