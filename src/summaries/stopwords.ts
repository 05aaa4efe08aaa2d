// Function words that carry no topic, per language: they are left out of the TF-IDF vectors the
// extractive summariser compares sentences with. Lowercase; apostrophes are split off before lookup.

const list = (words: string) => new Set(words.split(/\s+/).filter(Boolean));

export const STOP_WORDS: Record<"en" | "fr" | "de" | "es", Set<string>> = {
  en: list(`
    a about above after again against all also am an and any are aren as at be because been before being
    below between both but by can cannot could couldn did didn do does doesn doing don down during each
    even ever every few for from further get gets got had hadn has hasn have haven having he her here hers
    herself him himself his how however i if in into is isn it its itself just let ll me more most much
    must mustn my myself no nor not now of off often on once one only or other ought our ours ourselves
    out over own quite rather re really same say says said shall shan she should shouldn so some such
    than that the their theirs them themselves then there these they this those though through thus to
    too under until up upon us ve very was wasn we well were weren what when where whether which while who
    whom whose why will with within without won would wouldn yet you your yours yourself yourselves
    s t d m o y also just like many may might next still way going
  `),
  fr: list(`
    a à afin ai aie aient ainsi alors après as au aucun aucune aupres auquel aussi autre autres aux
    auxquels avaient avais avait avant avec avez aviez avions avoir avons ayant bien c ça car ce ceci cela
    celle celles celui cependant certains ces cet cette ceux chaque chez ci comme comment d dans de depuis
    des desquels dont du donc elle elles en encore entre es est et étaient étais était été être eu eux
    fait faire fois font hors il ils j je jusqu jusque l la là laquelle le lequel les lesquels leur leurs
    lors lorsque lui m ma mais me même mêmes mes moi moins mon n ne ni non nos notre nous on ont ou où par
    parce pas peu peut plus plutôt pour pourquoi puis qu quand que quel quelle quelles quels qui quoi sa
    sans se selon ses si sien son sont sous suis sur t ta tandis te tes toi ton tous tout toute toutes très
    tu un une vers voici voilà vos votre vous y sera seront sera serait doit peuvent cet aussi déjà
  `),
  de: list(`
    ab aber alle allem allen aller alles als also am an ander andere anderem anderen anderer anderes auch
    auf aus bei beim bin bis bist da damit dann das dass dein deine dem den denn der deren des dessen dich
    die dies diese diesem diesen dieser dieses dir doch dort du durch ein eine einem einen einer eines
    einige einmal er es etwas euch euer eure für gegen gewesen hab habe haben hat hatte hatten hier hin
    hinter ich ihm ihn ihnen ihr ihre ihrem ihren ihrer ihres im in indem ins ist jede jedem jeden jeder
    jedes jene jenem jenen jener jenes jetzt kann kein keine keinem keinen keiner können könnte machen man
    manche mein meine mich mir mit muss musste nach nicht nichts noch nun nur ob oder ohne sehr sein seine
    seinem seinen seiner seines selbst sich sie sind so solche soll sollte sondern sonst um und uns unser
    unsere unter viel vom von vor wann war waren warum was weil welche welchem welchen welcher welches
    wenn wer werde werden wie wieder will wir wird wirst wo wollen wurde wurden zu zum zur zwar zwischen
    schon immer sowie dabei wird werden kann
  `),
  es: list(`
    a al algo algunas algunos ante antes como con contra cual cuales cuando de del desde donde dos durante
    e el él ella ellas ellos en entre era erais eran eras es esa esas ese eso esos esta está estaba
    estaban estado estamos están estar este esto estos fue fueron fui ha habéis haber había habían han has
    hasta hay la las le les lo los más me mi mis mismo mucho muchos muy nada ni no nos nosotros o os otra
    otras otro otros para pero poco por porque que qué quien quienes se sea sean ser si sí sido siempre
    sin sobre sois solo somos son su sus también tanto te tenemos tener tengo ti tiene tienen todo todos
    tu tus un una uno unos usted ustedes vosotros y ya cada puede pueden ser será así aquí
  `),
};

/** The language whose stop-words the text uses most (en, fr, de or es); `hint` wins when it is one of them. */
export function stopWordLanguage(tokens: string[], hint: string | null): keyof typeof STOP_WORDS {
  const primary = hint?.split("-")[0].toLowerCase();
  if (primary && Object.hasOwn(STOP_WORDS, primary)) return primary as keyof typeof STOP_WORDS;
  let best: keyof typeof STOP_WORDS = "en";
  let bestHits = -1;
  for (const lang of Object.keys(STOP_WORDS) as (keyof typeof STOP_WORDS)[]) {
    let hits = 0;
    for (const t of tokens) if (STOP_WORDS[lang].has(t)) hits++;
    if (hits > bestHits) [best, bestHits] = [lang, hits];
  }
  return best;
}
