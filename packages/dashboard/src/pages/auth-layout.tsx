import type { ReactNode } from 'react';
import { Link } from 'react-router';

/** The pages reached without an org (login, sign-up, an invitation, a command-line login). */
export function AuthLayout({ children }: { children: ReactNode }) {
  return (
    <div className="auth">
      <header className="auth-header">
        <Link to="/" className="brand">
          Orrery
        </Link>
      </header>
      <main id="main" className="auth-main">
        {children}
      </main>
    </div>
  );
}
