//! How a language writes dates and numbers on a page: its `date_format` with the
//! month names of its locale, and its numerals (`latn` 0–9, `arab` ٠–٩).

use crate::content::languages::{Language, Numerals};

/// A date as `language` writes it, with the month names of `locale` (found once
/// by the caller: every page asks).
pub fn date(
    language: &Language,
    date: chrono::NaiveDate,
    locale: Option<chrono::Locale>,
) -> String {
    let text = match locale {
        Some(locale) => date
            .format_localized(&language.date_format, locale)
            .to_string(),
        None => date.format(&language.date_format).to_string(),
    };
    digits(language.numerals, &text)
}

/// Text with its digits in `numerals`.
pub fn digits(numerals: Numerals, text: &str) -> String {
    match numerals {
        Numerals::Latn => text.to_string(),
        Numerals::Arab => text
            .chars()
            .map(|c| match c.to_digit(10) {
                Some(d) if c.is_ascii_digit() => char::from_u32(0x0660 + d).unwrap_or(c),
                _ => c,
            })
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::content::languages::{Direction, LanguageCode};

    fn language(code: &str, format: &str) -> Language {
        Language {
            code: LanguageCode::from_checked(code),
            name: code.into(),
            direction: Direction::Ltr,
            date_format: format.into(),
            locale: None,
            numerals: Numerals::Latn,
        }
    }

    fn written(language: &Language, day: chrono::NaiveDate) -> String {
        date(language, day, language.chrono_locale().ok())
    }

    #[test]
    fn dates_follow_the_language() {
        let day = chrono::NaiveDate::from_ymd_opt(2026, 11, 23).unwrap();
        assert_eq!(
            written(&language("en", "%B %-d, %Y"), day),
            "November 23, 2026"
        );
        assert_eq!(
            written(&language("de", "%-d. %B %Y"), day),
            "23. November 2026"
        );
        let march = chrono::NaiveDate::from_ymd_opt(2026, 3, 1).unwrap();
        assert_eq!(
            written(&language("de", "%-d. %B %Y"), march),
            "1. März 2026"
        );
        assert_eq!(written(&language("ar", "%-d %B %Y"), day), "23 نوفمبر 2026");
        let mut arab = language("ar", "%-d %B %Y");
        arab.numerals = Numerals::Arab;
        assert_eq!(written(&arab, day), "٢٣ نوفمبر ٢٠٢٦");
    }
}
