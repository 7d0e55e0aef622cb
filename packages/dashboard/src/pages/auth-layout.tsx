import type { ReactNode } from 'react';
import { Link, Navigate } from 'react-router';
import { Loading } from '../components.tsx';
import { useSession } from '../session.tsx';

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

/**
 * Login and sign-up, for someone not logged in: while the session loads that is said, and someone
 * already logged in goes on to `next`, unless they have `justIn` come in here (the page sends them).
 */
export function LoggedOutLayout({
  next,
  justIn,
  children,
}: {
  next: string;
  justIn: boolean;
  children: ReactNode;
}) {
  const session = useSession();
  if (session.data && !justIn) return <Navigate to={next} replace />;
  return <AuthLayout>{session.isPending ? <Loading what="your session" /> : children}</AuthLayout>;
}
