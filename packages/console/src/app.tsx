import { useEffect, useMemo, useState } from 'preact/hooks';
import { currentSession, gql, rest, setCsrf, whenSignedOut } from './api';
import { MeDocument, type MeQuery } from './graphql/generated';
import { browserLang, I18n, translator, type Lang } from './i18n';
import { href, useRoute } from './router';
import { CrawlsScreen } from './screens/crawls';
import { MatchesScreen } from './screens/matches';
import { MediaScreen } from './screens/media';
import { OverviewScreen } from './screens/overview';
import { CasesScreen } from './screens/cases';
import { PressScreen } from './screens/press';
import { SettingsScreen } from './screens/settings';
import { SignIn } from './screens/sign-in';
import { Loading } from './ui';

export type Me = NonNullable<MeQuery['account']>;

const SCREENS = ['overview', 'media', 'matches', 'cases', 'crawls', 'press', 'settings'] as const;
type Screen = (typeof SCREENS)[number];

export function App() {
  const [phase, setPhase] = useState<'boot' | 'out' | 'in'>('boot');
  const [me, setMe] = useState<Me | null>(null);
  const [lang, setLang] = useState<Lang>(browserLang());
  const i18n = useMemo(() => ({ lang, t: translator(lang) }), [lang]);

  const enter = async () => {
    const data = await gql(MeDocument);
    setMe(data.account);
    setLang(data.accountSettings.lang === 'fr' ? 'fr' : 'en');
    setPhase('in');
  };

  useEffect(() => {
    whenSignedOut(() => {
      setCsrf(null);
      setPhase('out');
    });
    void currentSession().then(async (s) => {
      if (!s) return setPhase('out');
      setCsrf(s.csrf_token);
      await enter().catch(() => setPhase('out'));
    });
  }, []);

  useEffect(() => {
    document.documentElement.lang = lang;
  }, [lang]);

  return (
    <I18n.Provider value={i18n}>
      {phase === 'boot' ? (
        <main id="main">
          <Loading />
        </main>
      ) : phase === 'out' || !me ? (
        <SignIn onSignedIn={enter} />
      ) : (
        <Shell me={me} onLang={setLang} onSignOut={() => setPhase('out')} />
      )}
    </I18n.Provider>
  );
}

function Shell({ me, onLang, onSignOut }: { me: Me; onLang: (l: Lang) => void; onSignOut: () => void }) {
  const route = useRoute();
  const screen: Screen = (SCREENS as readonly string[]).includes(route.path[0] ?? '') ? (route.path[0] as Screen) : 'overview';
  const [menuOpen, setMenuOpen] = useState(false);
  useEffect(() => setMenuOpen(false), [route]);
  // The page title says where the user is (screen readers announce it).
  return (
    <I18n.Consumer>
      {({ t }) => {
        document.title = `${t(`nav.${screen}`)} · Filigrane`;
        const signOut = async () => {
          await rest('DELETE', '/api/v4/session/').catch(() => undefined);
          setCsrf(null);
          onSignOut();
        };
        return (
          <div class="shell">
            <a class="skip" href="#main" onClick={(e) => (e.preventDefault(), document.getElementById('main')?.focus())}>
              {t('nav.skip')}
            </a>
            <header class="topbar">
              <span class="brand">{t('app.name')}</span>
              <button type="button" class="menu-button" aria-expanded={menuOpen} aria-controls="nav" onClick={() => setMenuOpen(!menuOpen)}>
                {t('nav.menu')}
              </button>
              <span class="who">{me.fullName || me.username}</span>
              <button type="button" class="link-button" onClick={signOut}>
                {t('nav.signOut')}
              </button>
            </header>
            <nav id="nav" aria-label={t('nav.label')} class={menuOpen ? 'open' : ''}>
              <ul>
                {SCREENS.filter((s) => s !== 'press' || me.permissions.includes('press:ingest')).map((s) => (
                  <li key={s}>
                    <a href={href([s])} aria-current={s === screen ? 'page' : undefined}>
                      {t(`nav.${s}`)}
                    </a>
                  </li>
                ))}
              </ul>
            </nav>
            <main id="main" tabIndex={-1}>
              {screen === 'overview' && <OverviewScreen />}
              {screen === 'media' && <MediaScreen me={me} route={route} />}
              {screen === 'matches' && <MatchesScreen route={route} />}
              {screen === 'cases' && <CasesScreen route={route} />}
              {screen === 'crawls' && <CrawlsScreen route={route} />}
              {screen === 'press' && <PressScreen me={me} />}
              {screen === 'settings' && <SettingsScreen me={me} onLang={onLang} />}
            </main>
          </div>
        );
      }}
    </I18n.Consumer>
  );
}

