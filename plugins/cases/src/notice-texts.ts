/**
 * The words of a takedown notice in each language the account may choose (fr, en). The statements
 * follow the laws' own wording: 17 U.S.C. § 512(c)(3)(A) for a DMCA notice, Article 16(2) of
 * Regulation (EU) 2022/2065 (Digital Services Act) for a notice to a hosting service.
 */
export type NoticeLang = 'fr' | 'en';
export type NoticeType = 'dmca' | 'dsa';

export interface NoticeTexts {
  title: Record<NoticeType, string>;
  subtitle: Record<NoticeType, string>;
  date: string;
  to: string;
  toDefault: (site: string | null) => string;
  from: string;
  caseRef: string;
  works: string;
  workLine: (path: string, registered: string, id: string) => string;
  copies: Record<NoticeType, string>;
  page: string;
  image: string;
  seen: (first: string, last: string) => string;
  pack: (id: string, sha256: string, captured: string | null) => string;
  noPack: string;
  explanation: string;
  explanationDefault: (holder: string) => string;
  contact: string;
  name: string;
  email: string;
  address: string;
  phone: string;
  goodFaith: string;
  goodFaithText: string;
  accuracy: string;
  accuracyText: string;
  authority: string;
  authorityText: (holder: string, signer: string) => string;
  dsaStatement: string;
  dsaStatementText: string;
  signature: string;
  signed: (signer: string, date: string) => string;
  evidenceNote: string;
  mailSubject: (type: NoticeType, site: string | null) => string;
  mailIntro: string;
}

const en: NoticeTexts = {
  title: { dmca: 'DMCA takedown notice', dsa: 'Notice of illegal content' },
  subtitle: {
    dmca: 'Notification of claimed copyright infringement under 17 U.S.C. § 512(c)(3)',
    dsa: 'Notice under Article 16 of Regulation (EU) 2022/2065 (Digital Services Act)',
  },
  date: 'Date',
  to: 'To',
  toDefault: (site) => (site ? `The designated agent or abuse contact of ${site}` : 'The designated agent or abuse contact of the service provider'),
  from: 'From',
  caseRef: 'Reference',
  works: 'Copyrighted work(s)',
  workLine: (path, registered, id) => `${path}, registered with Filigrane on ${registered} (media ${id})`,
  copies: { dmca: 'Infringing material and its location', dsa: 'Exact electronic location of the illegal content (URLs)' },
  page: 'Page',
  image: 'Image',
  seen: (first, last) => `First seen ${first}, last seen ${last}`,
  pack: (id, sha, captured) => `Evidence pack ${id}${captured ? ` captured ${captured}` : ''}, SHA-256 ${sha}`,
  noPack: 'Evidence pack: none attached',
  explanation: 'Why the content is illegal',
  explanationDefault: (holder) =>
    `The material at the locations above reproduces and communicates to the public the copyrighted work(s) listed in section 1, of which ${holder} holds the rights, without their authorisation. This infringes the exclusive rights of reproduction and communication to the public (Directive 2001/29/EC, Articles 2 and 3). Each copy was identified by Filigrane, which detected the work's registered watermark or its visual signature in the image served at that location.`,
  contact: 'Contact information of the complaining party',
  name: 'Name',
  email: 'E-mail',
  address: 'Address',
  phone: 'Telephone',
  goodFaith: 'Good-faith statement',
  goodFaithText: 'I have a good faith belief that use of the material in the manner complained of is not authorized by the copyright owner, its agent, or the law.',
  accuracy: 'Statement of accuracy, under penalty of perjury',
  accuracyText:
    'I swear, under penalty of perjury, that the information in this notification is accurate and that I am the copyright owner or am authorized to act on behalf of the owner of an exclusive right that is allegedly infringed.',
  authority: 'Authority to act',
  authorityText: (holder, signer) => (holder === signer ? `I, ${signer}, am the owner of the exclusive rights in the work(s) listed above.` : `I, ${signer}, am authorized to act on behalf of ${holder}, the owner of the exclusive rights in the work(s) listed above.`),
  dsaStatement: 'Statement of good faith',
  dsaStatementText: 'I confirm my bona fide belief that the information and allegations contained in this notice are accurate and complete.',
  signature: 'Signature',
  signed: (signer, date) => `/s/ ${signer}, ${date} (electronic signature)`,
  evidenceNote: 'Each evidence pack is a signed WACZ file (RFC 3161 time-stamped when the service has a time stamp authority); its SHA-256 above lets anyone check that the file they receive is the one cited here.',
  mailSubject: (type, site) => `${type === 'dmca' ? 'DMCA takedown notice' : 'Notice of illegal content (DSA art. 16)'}${site ? `: ${site}` : ''}`,
  mailIntro: 'Please find below, and attached as PDF, a notice concerning content hosted on your service.',
};

const fr: NoticeTexts = {
  title: { dmca: 'Notification de retrait DMCA', dsa: 'Notification de contenu illicite' },
  subtitle: {
    dmca: 'Notification d’une atteinte présumée au droit d’auteur au titre du 17 U.S.C. § 512(c)(3)',
    dsa: 'Notification au titre de l’article 16 du règlement (UE) 2022/2065 (règlement sur les services numériques)',
  },
  date: 'Date',
  to: 'Destinataire',
  toDefault: (site) => (site ? `L’agent désigné ou le contact abus de ${site}` : 'L’agent désigné ou le contact abus du prestataire'),
  from: 'Expéditeur',
  caseRef: 'Référence',
  works: 'Œuvre(s) protégée(s)',
  workLine: (path, registered, id) => `${path}, enregistrée auprès de Filigrane le ${registered} (média ${id})`,
  copies: { dmca: 'Contenu contrefaisant et son emplacement', dsa: 'Emplacement électronique exact du contenu illicite (URL)' },
  page: 'Page',
  image: 'Image',
  seen: (first, last) => `Vue pour la première fois le ${first}, pour la dernière fois le ${last}`,
  pack: (id, sha, captured) => `Preuve ${id}${captured ? ` capturée le ${captured}` : ''}, SHA-256 ${sha}`,
  noPack: 'Preuve : aucune jointe',
  explanation: 'Raisons pour lesquelles le contenu est illicite',
  explanationDefault: (holder) =>
    `Le contenu situé aux emplacements ci-dessus reproduit et communique au public l’œuvre ou les œuvres protégées énumérées à la section 1, dont ${holder} détient les droits, sans son autorisation. Il porte atteinte aux droits exclusifs de reproduction et de communication au public (directive 2001/29/CE, articles 2 et 3 ; code de la propriété intellectuelle, articles L122-1 et L122-4). Chaque copie a été identifiée par Filigrane, qui a détecté le filigrane enregistré de l’œuvre ou sa signature visuelle dans l’image servie à cet emplacement.`,
  contact: 'Coordonnées du plaignant',
  name: 'Nom',
  email: 'Courriel',
  address: 'Adresse',
  phone: 'Téléphone',
  goodFaith: 'Déclaration de bonne foi',
  goodFaithText: 'Je crois de bonne foi que l’utilisation du contenu faisant l’objet de la présente plainte n’est autorisée ni par le titulaire du droit d’auteur, ni par son mandataire, ni par la loi.',
  accuracy: 'Déclaration d’exactitude, sous peine de parjure',
  accuracyText:
    'Je déclare, sous peine de parjure, que les informations contenues dans la présente notification sont exactes et que je suis le titulaire du droit d’auteur ou que je suis autorisé à agir au nom du titulaire d’un droit exclusif prétendument violé.',
  authority: 'Qualité pour agir',
  authorityText: (holder, signer) => (holder === signer ? `Je, soussigné(e) ${signer}, suis titulaire des droits exclusifs sur l’œuvre ou les œuvres énumérées ci-dessus.` : `Je, soussigné(e) ${signer}, suis autorisé(e) à agir au nom de ${holder}, titulaire des droits exclusifs sur l’œuvre ou les œuvres énumérées ci-dessus.`),
  dsaStatement: 'Déclaration de bonne foi',
  dsaStatementText: 'Je confirme penser, de bonne foi, que les informations et allégations contenues dans la présente notification sont exactes et complètes.',
  signature: 'Signature',
  signed: (signer, date) => `/s/ ${signer}, le ${date} (signature électronique)`,
  evidenceNote: 'Chaque preuve est un fichier WACZ signé (horodaté selon la RFC 3161 lorsque le service dispose d\'une autorité d\'horodatage) ; son SHA-256 ci-dessus permet à quiconque de vérifier que le fichier reçu est bien celui cité ici.',
  mailSubject: (type, site) => `${type === 'dmca' ? 'Notification de retrait DMCA' : 'Notification de contenu illicite (DSA, art. 16)'}${site ? ` : ${site}` : ''}`,
  mailIntro: 'Veuillez trouver ci-dessous, et en pièce jointe au format PDF, une notification concernant un contenu hébergé par votre service.',
};

export const noticeTexts = (lang: NoticeLang): NoticeTexts => (lang === 'fr' ? fr : en);
