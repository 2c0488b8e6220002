/** The mails' words in the account's language (fr, en); everything else in a mail is data. */
export type Lang = 'fr' | 'en';

const T = {
  en: {
    webSubject: (n: number) => `New web match${n > 1 ? 'es' : ''} of your images`,
    webIntro: 'Filigrane found your image on this page:',
    pdfSubject: (title: string) => `Press issue processed: ${title}`,
    pdfBody: (title: string, n: number) => `The press issue "${title}" was analysed: ${n} match${n === 1 ? '' : 'es'} with your images.`,
    uploadSubject: (path: string) => `Image registered: ${path}`,
    uploadBody: (path: string) => `Your image ${path} is registered; Filigrane now looks for it on the web and in the press.`,
    digestSubject: (period: 'daily' | 'weekly', n: number) => `Your ${period} Filigrane digest: ${n} new match${n === 1 ? '' : 'es'}`,
    byPage: 'New web matches, by page',
    bySite: 'New web matches, by site',
    press: 'New press matches',
    matches: (n: number) => `${n} match${n === 1 ? '' : 'es'}`,
    footer: 'You receive this mail because of your notification settings (GET/POST /api/v4/account/settings/).',
  },
  fr: {
    webSubject: (n: number) => `Nouvelle${n > 1 ? 's' : ''} détection${n > 1 ? 's' : ''} web de vos images`,
    webIntro: 'Filigrane a trouvé votre image sur cette page :',
    pdfSubject: (title: string) => `Parution de presse analysée : ${title}`,
    pdfBody: (title: string, n: number) => `La parution « ${title} » a été analysée : ${n} détection${n > 1 ? 's' : ''} de vos images.`,
    uploadSubject: (path: string) => `Image enregistrée : ${path}`,
    uploadBody: (path: string) => `Votre image ${path} est enregistrée ; Filigrane la recherche désormais sur le web et dans la presse.`,
    digestSubject: (period: 'daily' | 'weekly', n: number) => `Votre récapitulatif ${period === 'daily' ? 'quotidien' : 'hebdomadaire'} Filigrane : ${n} nouvelle${n > 1 ? 's' : ''} détection${n > 1 ? 's' : ''}`,
    byPage: 'Nouvelles détections web, par page',
    bySite: 'Nouvelles détections web, par site',
    press: 'Nouvelles détections presse',
    matches: (n: number) => `${n} détection${n > 1 ? 's' : ''}`,
    footer: 'Vous recevez ce message selon vos préférences de notification (GET/POST /api/v4/account/settings/).',
  },
};

export const texts = (lang: string) => T[lang === 'fr' ? 'fr' : 'en'];
