// On-air strings. Russian is the default; Ukrainian and English are complete.
// Keys are English identifiers; `t(key, vars)` fills {name} placeholders.

const STRINGS = {
  ru: {
    experts: "Знатоки",
    viewers: "Телезрители",
    experts_short: "З",
    viewers_short: "Т",
    score: "Счёт",
    sector: "Сектор",
    sector_n: "Сектор {n}",
    question_n_of: "Вопрос {n} из {total}",
    kind_regular: "Сектор",
    kind_blitz: "Блиц",
    kind_superblitz: "Суперблиц",
    kind_sponsor: "Сектор спонсора",
    phase_reading: "Вопрос",
    phase_discussion: "Обсуждение",
    phase_answer: "Ответ",
    phase_club_help: "Помощь клуба",
    phase_closed: "Раунд окончен",
    timer_minute: "Минута",
    timer_blitz: "Блиц",
    timer_extra_minute: "Дополнительная минута",
    timer_club_help: "Помощь клуба",
    time_up: "Время!",
    paused: "Пауза",
    extra_minute_badge: "Доп. минута",
    club_help_badge: "Помощь клуба",
    decisive_badge: "Решающий раунд",
    early_badge: "Досрочный ответ",
    plays_against: "Против знатоков играет",
    from_city: "{city}",
    prize: "Приз",
    answer: "Правильный ответ",
    verdict_correct: "Знатоки ответили верно",
    verdict_incorrect: "Приз получает телезритель",
    blitz_player: "Отвечает",
    winner_experts: "Победа знатоков",
    winner_viewers: "Победа телезрителей",
    game_over: "Игра окончена",
    final_score: "Итоговый счёт",
    prizes_won: "Призы телезрителей",
    no_prizes: "Все вопросы взяты знатоками",
    best_player: "Лучший игрок",
    total: "Всего",
    sponsor: "Спонсор",
    host: "Ведущий",
    captain: "Капитан",
    show_title: "Что? Где? Когда?",
  },
  uk: {
    experts: "Знавці",
    viewers: "Телеглядачі",
    experts_short: "З",
    viewers_short: "Т",
    score: "Рахунок",
    sector: "Сектор",
    sector_n: "Сектор {n}",
    question_n_of: "Питання {n} з {total}",
    kind_regular: "Сектор",
    kind_blitz: "Бліц",
    kind_superblitz: "Супербліц",
    kind_sponsor: "Сектор спонсора",
    phase_reading: "Питання",
    phase_discussion: "Обговорення",
    phase_answer: "Відповідь",
    phase_club_help: "Допомога клубу",
    phase_closed: "Раунд завершено",
    timer_minute: "Хвилина",
    timer_blitz: "Бліц",
    timer_extra_minute: "Додаткова хвилина",
    timer_club_help: "Допомога клубу",
    time_up: "Час!",
    paused: "Пауза",
    extra_minute_badge: "Дод. хвилина",
    club_help_badge: "Допомога клубу",
    decisive_badge: "Вирішальний раунд",
    early_badge: "Дострокова відповідь",
    plays_against: "Проти знавців грає",
    from_city: "{city}",
    prize: "Приз",
    answer: "Правильна відповідь",
    verdict_correct: "Знавці відповіли правильно",
    verdict_incorrect: "Приз отримує телеглядач",
    blitz_player: "Відповідає",
    winner_experts: "Перемога знавців",
    winner_viewers: "Перемога телеглядачів",
    game_over: "Гру завершено",
    final_score: "Підсумковий рахунок",
    prizes_won: "Призи телеглядачів",
    no_prizes: "Усі питання взяли знавці",
    best_player: "Найкращий гравець",
    total: "Усього",
    sponsor: "Спонсор",
    host: "Ведучий",
    captain: "Капітан",
    show_title: "Що? Де? Коли?",
  },
  en: {
    experts: "Experts",
    viewers: "Viewers",
    experts_short: "E",
    viewers_short: "V",
    score: "Score",
    sector: "Sector",
    sector_n: "Sector {n}",
    question_n_of: "Question {n} of {total}",
    kind_regular: "Sector",
    kind_blitz: "Blitz",
    kind_superblitz: "Superblitz",
    kind_sponsor: "Sponsor's sector",
    phase_reading: "Question",
    phase_discussion: "Discussion",
    phase_answer: "Answer",
    phase_club_help: "Club help",
    phase_closed: "Round over",
    timer_minute: "Minute",
    timer_blitz: "Blitz",
    timer_extra_minute: "Extra minute",
    timer_club_help: "Club help",
    time_up: "Time!",
    paused: "Paused",
    extra_minute_badge: "Extra minute",
    club_help_badge: "Club help",
    decisive_badge: "Decisive round",
    early_badge: "Early answer",
    plays_against: "Playing against the experts",
    from_city: "{city}",
    prize: "Prize",
    answer: "Correct answer",
    verdict_correct: "The experts are right",
    verdict_incorrect: "The viewer wins the prize",
    blitz_player: "Answering",
    winner_experts: "The experts win",
    winner_viewers: "The viewers win",
    game_over: "Game over",
    final_score: "Final score",
    prizes_won: "Viewers' prizes",
    no_prizes: "The experts took every question",
    best_player: "Best player",
    total: "Total",
    sponsor: "Sponsor",
    host: "Host",
    captain: "Captain",
    show_title: "What? Where? When?",
  },
};

const LOCALES = { ru: "ru-RU", uk: "uk-UA", en: "en-GB" };

export const LANGS = Object.keys(STRINGS);

/** Returns a translator for `lang` (unknown languages fall back to Russian). */
export function translator(lang) {
  const table = STRINGS[lang] || STRINGS.ru;
  const locale = LOCALES[lang] || LOCALES.ru;
  const t = (key, vars = {}) => {
    const s = table[key] ?? STRINGS.ru[key] ?? key;
    return s.replace(/\{(\w+)\}/g, (_, k) => (vars[k] ?? ""));
  };
  t.lang = STRINGS[lang] ? lang : "ru";
  t.locale = locale;
  t.number = (n) => new Intl.NumberFormat(locale).format(n);
  t.money = (amount, currency) => formatMoney(amount, currency, locale);
  return t;
}

function formatMoney(amount, currency, locale) {
  if (amount == null) return "";
  if (!currency) return new Intl.NumberFormat(locale).format(amount);
  try {
    return new Intl.NumberFormat(locale, {
      style: "currency", currency, currencyDisplay: "narrowSymbol", maximumFractionDigits: 0,
    }).format(amount);
  } catch {
    // Not an ISO 4217 code (e.g. "книги"): print it after the number.
    return `${new Intl.NumberFormat(locale).format(amount)} ${currency}`;
  }
}
