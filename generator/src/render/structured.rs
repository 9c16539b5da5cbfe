//! schema.org data of an event's and a job posting's page, as Google reads it
//! for its event results and Google for Jobs: every required property, and the
//! recommended ones the content can give (`generator/tests/suite/structured_data.rs`
//! checks them against a list of Google's).

use serde_json::{json, Value};

use super::text::script_safe_json;
use crate::content::canonical_url;
use crate::content::entries::{Event, Job, Place, SalaryUnit};
use crate::content::{Page, SiteConfig};

/// The `<script type="application/ld+json">` of an event or a job posting, or
/// nothing for other pages. `lang` is the code of the page's language, `image`
/// the page's picture (its social card when it has none of its own), absolute.
pub fn script(site: &SiteConfig, base_url: &str, page: &Page, lang: &str, image: &str) -> String {
    let data = match (&page.event, &page.job) {
        (Some(event), _) => event_data(site, base_url, page, lang, event, image),
        (_, Some(job)) => job_data(site, base_url, page, job),
        _ => return String::new(),
    };
    format!(
        r#"<script type="application/ld+json">{}</script>"#,
        script_safe_json(&data.to_string())
    )
}

fn organization(site: &SiteConfig, base_url: &str) -> Value {
    json!({
        "@type": "Organization",
        "name": site.name,
        "url": canonical_url(base_url, "/"),
    })
}

fn event_data(
    site: &SiteConfig,
    base_url: &str,
    page: &Page,
    lang: &str,
    event: &Event,
    image: &str,
) -> Value {
    let (mode, location) = match &event.place {
        Place::Online(_) => (
            "https://schema.org/OnlineEventAttendanceMode",
            json!({ "@type": "VirtualLocation", "url": event.registration }),
        ),
        Place::Venue(v) => (
            "https://schema.org/OfflineEventAttendanceMode",
            json!({
                "@type": "Place",
                "name": v.name,
                "address": {
                    "@type": "PostalAddress",
                    "streetAddress": v.street,
                    "addressLocality": v.city,
                    "addressCountry": v.country,
                },
            }),
        ),
    };
    let mut data = json!({
        "@context": "https://schema.org",
        "@type": "Event",
        "name": page.title,
        "description": page.description,
        "startDate": event.start_local,
        "endDate": event.end_local,
        "eventStatus": "https://schema.org/EventScheduled",
        "eventAttendanceMode": mode,
        "location": location,
        "image": [image],
        "url": canonical_url(base_url, &page.route),
        "inLanguage": lang,
        "organizer": organization(site, base_url),
        // Registration is free: the offer is a place, at no cost.
        "offers": {
            "@type": "Offer",
            "url": event.registration,
            "price": "0",
            "priceCurrency": "USD",
            "availability": "https://schema.org/InStock",
        },
    });
    if !event.speakers.is_empty() {
        data["performer"] = event
            .speakers
            .iter()
            .map(|name| json!({ "@type": "Person", "name": name }))
            .collect();
    }
    data
}

fn job_data(site: &SiteConfig, base_url: &str, page: &Page, job: &Job) -> Value {
    let mut data = json!({
        "@context": "https://schema.org",
        "@type": "JobPosting",
        "title": page.title,
        // Google wants the whole description, as HTML.
        "description": format!("<p>{}</p>{}", html_escape(&page.description), page.content),
        "datePosted": job.date_posted.as_str(),
        "validThrough": format!("{}T23:59:59", job.valid_through.as_str()),
        "employmentType": job.employment_type.schema_org(),
        "hiringOrganization": {
            "@type": "Organization",
            "name": site.name,
            "sameAs": canonical_url(base_url, "/"),
        },
        "identifier": {
            "@type": "PropertyValue",
            "name": site.name,
            "value": page.route.trim_matches('/').rsplit('/').next().unwrap_or_default(),
        },
        // The `job` layout carries the application form: the whole application
        // is made on the page. Another layout may not.
        "directApply": page.layout == "job",
        "url": canonical_url(base_url, &page.route),
    });
    if job.remote {
        data["jobLocationType"] = json!("TELECOMMUTE");
        data["applicantLocationRequirements"] = job
            .applicants_from
            .iter()
            .map(|c| json!({ "@type": "Country", "name": c }))
            .collect();
    } else if let Some(office) = site.offices.iter().find(|o| o.city == job.location) {
        let mut address = json!({
            "@type": "PostalAddress",
            "streetAddress": office.street,
            "addressLocality": office.city,
            "postalCode": office.postal_code,
            "addressCountry": office.country,
        });
        if let Some(region) = &office.region {
            address["addressRegion"] = json!(region);
        }
        data["jobLocation"] = json!({ "@type": "Place", "address": address });
    }
    if let Some(salary) = &job.salary {
        data["baseSalary"] = json!({
            "@type": "MonetaryAmount",
            "currency": salary.currency,
            "value": {
                "@type": "QuantitativeValue",
                "minValue": salary.min,
                "maxValue": salary.max,
                "unitText": match salary.per {
                    SalaryUnit::Year => "YEAR",
                    SalaryUnit::Month => "MONTH",
                    SalaryUnit::Hour => "HOUR",
                },
            },
        });
    }
    data
}

fn html_escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}
