//! Text for templates: Markdown filters, e-mail addresses that wrap well, and
//! JSON that is safe inside a `<script>` element.

use minijinja::value::Value;

use crate::content::markdown;
// The templates' helpers (and the language switcher) escape attributes alike.
pub use crate::html::escape_attribute;

pub fn markdown_filter(text: &str) -> Value {
    Value::from_safe_string(markdown::render(text))
}

pub fn markdown_inline_filter(text: &str) -> Value {
    Value::from_safe_string(markdown::render_inline(text))
}

/// An e-mail address that may wrap only after its `@` and before the dots of its
/// domain, never mid-word: `a@b.example` → `a@<wbr>b<wbr>.example`.
pub fn email_breaks(address: &str) -> Value {
    let escaped = escape_attribute(address);
    let (local, domain) = escaped.split_once('@').unwrap_or((&escaped, ""));
    let out = if domain.is_empty() {
        local.to_string()
    } else {
        format!("{local}@<wbr>{}", domain.replace('.', "<wbr>."))
    };
    Value::from_safe_string(out)
}

/// JSON that cannot end its `<script>` element or be read as markup: `<`, `>` and `&`
/// become `\u003c` and friends, which JSON.parse reads back unchanged.
pub fn script_safe_json(json: &str) -> String {
    let mut out = String::with_capacity(json.len());
    for c in json.chars() {
        match c {
            '<' => out.push_str("\\u003c"),
            '>' => out.push_str("\\u003e"),
            '&' => out.push_str("\\u0026"),
            '\u{2028}' => out.push_str("\\u2028"),
            '\u{2029}' => out.push_str("\\u2029"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_email_address_breaks_only_at_its_at_sign_and_dots() {
        assert_eq!(
            email_breaks("sydney@meridian-digital.example").to_string(),
            "sydney@<wbr>meridian-digital<wbr>.example"
        );
        assert_eq!(email_breaks("a&b@c").to_string(), "a&amp;b@<wbr>c");
    }

    #[test]
    fn writes_dates_out_in_words() {}

    #[test]
    fn props_json_cannot_close_its_script() {
        let s = script_safe_json(r#"{"a":"</script><b>&"}"#);
        assert!(!s.contains('<') && !s.contains('>') && !s.contains('&'));
        let back: serde_json::Value = serde_json::from_str(&s).unwrap();
        assert_eq!(back["a"], "</script><b>&");
    }
}
