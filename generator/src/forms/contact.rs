//! The contact form's table, `contact_messages`.

use super::table::*;
use crate::storage::policy::CONTACT_ATTACHMENTS;

pub const MAX_COMPANY: usize = 200;
pub const MAX_SUBJECT: usize = 200;

/// An attachment's public URL: in the contact-attachments bucket, under public/.
/// ASCII only (as every pattern here), so no engine's idea of a space or a letter
/// can differ.
pub const ATTACHMENT_URL_PATTERN: &str =
    "^https?://[A-Za-z0-9.:-]+/storage/v1/object/public/contact-attachments/public/[!-~]+$";

pub const CONTACT_MESSAGES: Table = Table {
    name: "contact_messages",
    migration: "supabase/migrations/20261123000000_contact_messages.sql",
    rows: "messages",
    about: "The contact form's messages",
    columns: &[
        ID,
        RECEIVED_AT,
        server(
            "status",
            Type::Text,
            Fill::Text("new"),
            "the team's: new, read or answered",
        ),
        public("name", Type::Text, true, "the sender's full name"),
        public("email", Type::Text, true, "the sender's e-mail address"),
        optional_text("phone", "optional"),
        optional_text("company", "optional"),
        public("subject", Type::Text, true, ""),
        public("message", Type::Text, true, ""),
        public(
            "privacy",
            Type::Boolean,
            true,
            "the privacy policy was accepted",
        ),
        public(
            "attachment_key",
            Type::Text,
            false,
            "the image's key in the contact-attachments bucket",
        ),
        public(
            "attachment_url",
            Type::Text,
            false,
            "the image's public URL",
        ),
        PAGE,
        FILL_MS,
        WEBSITE,
        SEND_KEY,
    ],
    checks: &[
        Check {
            name: "contact_messages_attachment_check",
            rule: Rule::Together("attachment_key", "attachment_url"),
        },
        Check {
            name: "contact_messages_attachment_key_check",
            rule: Rule::Pattern {
                column: "attachment_key",
                max: 1024,
                pattern: CONTACT_ATTACHMENTS.insert_key_pattern,
            },
        },
        Check {
            name: "contact_messages_attachment_url_check",
            rule: Rule::Pattern {
                column: "attachment_url",
                max: MAX_URL,
                pattern: ATTACHMENT_URL_PATTERN,
            },
        },
        Check {
            name: "contact_messages_company_check",
            rule: Rule::Length {
                column: "company",
                max: MAX_COMPANY,
                required: false,
            },
        },
        Check {
            name: "contact_messages_email_check",
            rule: EMAIL_RULE,
        },
        Check {
            name: "contact_messages_message_check",
            rule: Rule::Length {
                column: "message",
                max: MAX_TEXT,
                required: true,
            },
        },
        Check {
            name: "contact_messages_name_check",
            rule: Rule::Length {
                column: "name",
                max: MAX_NAME,
                required: true,
            },
        },
        Check {
            name: "contact_messages_page_check",
            rule: PAGE_RULE,
        },
        Check {
            name: "contact_messages_phone_check",
            rule: Rule::Length {
                column: "phone",
                max: MAX_PHONE,
                required: false,
            },
        },
        Check {
            name: "contact_messages_privacy_check",
            rule: Rule::IsTrue("privacy"),
        },
        Check {
            name: "contact_messages_status_check",
            rule: Rule::OneOf("status", &["new", "read", "answered"]),
        },
        Check {
            name: "contact_messages_subject_check",
            rule: Rule::Length {
                column: "subject",
                max: MAX_SUBJECT,
                required: true,
            },
        },
    ],
    guards: &[Guard::PublicUrl {
        key: "attachment_key",
        url: "attachment_url",
        bucket: &CONTACT_ATTACHMENTS,
    }],
    spam: Spam {
        trap: "website",
        fill: "fill_ms",
        min_fill_ms: MIN_FILL_MS,
        rate_limit: 5,
        window_seconds: 3600,
        email: "email",
        rate_table: "contact_message_rate",
    },
    retention: Retention {
        setting: "contact.retention_months",
        default_months: 12,
        job: "contact-messages-retention",
        since: "received_at",
        notice: "the privacy policy",
        files: "Images go by\n-- deploy/delete-old-attachments.mjs: Supabase lets no SQL delete a file.",
    },
    defines_sender: true,
};
