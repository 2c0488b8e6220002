import { useState } from 'preact/hooks';
import { rest, setCsrf, type SessionInfo } from '../api';
import { useT } from '../i18n';
import { ErrorBox, useAction } from '../ui';

export function SignIn({ onSignedIn }: { onSignedIn: () => Promise<void> }) {
  const t = useT();
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const action = useAction(async () => {
    const s = await rest<SessionInfo>('POST', '/api/v4/session/', { username, password });
    setCsrf(s.csrf_token);
    await onSignedIn();
  });
  document.title = `${t('signIn.title')}`;
  return (
    <main id="main" class="sign-in">
      <form
        class="card"
        onSubmit={(e) => {
          e.preventDefault();
          void action.call();
        }}
      >
        <h1>{t('signIn.title')}</h1>
        <div class="field">
          <label for="username">{t('signIn.username')}</label>
          <input id="username" name="username" autocomplete="username" required value={username} onInput={(e) => setUsername(e.currentTarget.value)} />
        </div>
        <div class="field">
          <label for="password">{t('signIn.password')}</label>
          <input id="password" name="password" type="password" autocomplete="current-password" required value={password} onInput={(e) => setPassword(e.currentTarget.value)} />
        </div>
        <ErrorBox error={action.error} />
        <button type="submit" class="primary" disabled={action.busy}>
          {action.busy ? t('signIn.busy') : t('signIn.submit')}
        </button>
        <p class="hint">{t('signIn.help')}</p>
      </form>
    </main>
  );
}
