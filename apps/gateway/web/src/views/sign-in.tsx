import { useState, type FormEvent } from 'react';

export function SignIn({ onSignIn, error }: { onSignIn: (token: string) => Promise<void>; error?: string }) {
  const [token, setToken] = useState('');
  const [busy, setBusy] = useState(false);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    await onSignIn(token.trim());
    setBusy(false);
  };
  return (
    <main className="sign-in">
      <h1>Headspace</h1>
      <form onSubmit={(e) => void submit(e)} aria-describedby="token-help">
        <label htmlFor="token">API token</label>
        <input id="token" name="token" type="password" autoComplete="off" required value={token} onChange={(e) => setToken(e.target.value)} />
        <p id="token-help" className="muted">
          A bearer token from <code>headspace token create</code> (or the admin token). It is kept in this tab only (session storage).
        </p>
        <button type="submit" disabled={busy || !token.trim()}>
          Sign in
        </button>
        {error && <p role="alert">{error}</p>}
      </form>
    </main>
  );
}
