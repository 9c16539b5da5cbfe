//! An event's and a job posting's pages carry the schema.org data Google reads
//! for its event results and Google for Jobs: every property it requires, and
//! every one it recommends, as listed in `tests/structured-data.json`.

use crate::common::Site;
use serde_json::Value;

const LAYOUT: &str = r#"{% extends "base.html" %}
{% block content %}{{ structured_data(page.route, "https://fixture.example/card.png") }}{{ page.content|safe }}{% endblock %}
"#;

fn site() -> Site {
    let site = Site::plain();
    let config = site.read("content/site.yaml");
    site.write(
        "content/site.yaml",
        &format!(
            "{config}collections: [{{ name: events, kind: events }}, {{ name: careers, kind: jobs }}]\n\
             offices: [{{ city: London, street: 1 Main Street, postal_code: EC1A 1AA, country: GB }}]\n"
        ),
    );
    site.write("templates/layouts/event.html", LAYOUT);
    site.write("templates/layouts/job.html", LAYOUT);
    site.write(
        "content/pages/events/summit.md",
        "---\ntitle: Summit\ndescription: Our summit.\nstart: 2099-03-10 09:00\nend: 2099-03-10 17:00\ntimezone: Europe/London\nplace: { name: The Hall, street: 1 Main Street, city: London, country: GB }\nregistration: https://events.example/summit\nspeakers: [Ada Speaker]\n---\nThe summit.\n",
    );
    site.write(
        "content/pages/events/webinar.md",
        "---\ntitle: Webinar\ndescription: Our webinar.\nstart: 2099-03-12 14:00\nend: 2099-03-12 15:00\nplace: Online\nregistration: https://events.example/webinar\nspeakers: [Ada Speaker]\n---\nThe webinar.\n",
    );
    site.write(
        "content/pages/careers/engineer.md",
        "---\ntitle: Engineer\ndescription: Build things.\nlocation: London\nteam: Engineering\nemployment_type: full_time\ndate_posted: 2026-01-01\nvalid_through: 2099-01-31\nsalary: { currency: GBP, min: 60000, max: 70000, per: year }\n---\nThe job.\n",
    );
    site.write(
        "content/pages/careers/remote.md",
        "---\ntitle: Remote engineer\ndescription: Build things from home.\nlocation: Remote\napplicants_from: [GB, IE]\nteam: Engineering\nemployment_type: contract\ndate_posted: 2026-01-01\nvalid_through: 2099-01-31\nsalary: { currency: EUR, min: 500, max: 600, per: month }\n---\nThe job.\n",
    );
    site
}

fn data(site: &Site, route: &str) -> Value {
    let html = std::fs::read_to_string(
        site.dist()
            .join(route.trim_start_matches('/'))
            .join("index.html"),
    )
    .unwrap();
    let start = html
        .find(r#"<script type="application/ld+json">"#)
        .expect(route)
        + 35;
    let end = start + html[start..].find("</script>").unwrap();
    serde_json::from_str(&html[start..end]).unwrap()
}

fn rules() -> Value {
    serde_json::from_str(include_str!("../structured-data.json")).unwrap()
}

fn has(data: &Value, path: &str) -> bool {
    let v = path.split('.').try_fold(data, |v, key| v.get(key));
    v.is_some_and(|v| !v.is_null() && v != "" && v.as_array().is_none_or(|a| !a.is_empty()))
}

/// The properties of `kind` that `data` lacks, required and recommended; `skip`
/// names those that do not apply.
fn missing(data: &Value, kind: &str, skip: &[&str]) -> Vec<String> {
    let rules = &rules()[kind];
    let mut lacks = Vec::new();
    for group in ["required", "recommended"] {
        for p in rules[group].as_array().unwrap() {
            let p = p.as_str().unwrap();
            if !skip.contains(&p) && !has(data, p) {
                lacks.push(format!("{group} {p}"));
            }
        }
    }
    for (at, props) in rules["nested"].as_object().unwrap() {
        let (path, of_type) = at.split_once('.').map_or((at.as_str(), None), |(p, t)| {
            match t.chars().next().is_some_and(char::is_uppercase) {
                true => (p, Some(t)),
                false => (at.as_str(), None),
            }
        });
        let Some(inner) = path.split('.').try_fold(data, |v, key| v.get(key)) else {
            continue;
        };
        if of_type.is_some_and(|t| inner["@type"] != t) {
            continue;
        }
        for p in props.as_array().unwrap() {
            let p = p.as_str().unwrap();
            if !has(inner, p) {
                lacks.push(format!("{at}.{p}"));
            }
        }
    }
    lacks
}

#[test]
fn an_event_has_every_property_google_requires_and_recommends() {
    let site = site();
    site.build_ok();
    for route in ["/events/summit/", "/events/webinar/"] {
        let event = data(&site, route);
        assert_eq!(event["@type"], "Event");
        assert_eq!(
            missing(&event, "Event", &[]),
            Vec::<String>::new(),
            "{route}"
        );
    }
    let summit = data(&site, "/events/summit/");
    assert_eq!(summit["startDate"], "2099-03-10T09:00:00+00:00");
    assert_eq!(
        summit["eventAttendanceMode"],
        "https://schema.org/OfflineEventAttendanceMode"
    );
    let webinar = data(&site, "/events/webinar/");
    assert_eq!(webinar["location"]["@type"], "VirtualLocation");
}

#[test]
fn a_job_posting_has_every_property_google_for_jobs_requires_and_recommends() {
    let site = site();
    site.build_ok();
    let office = data(&site, "/careers/engineer/");
    assert_eq!(office["@type"], "JobPosting");
    // An office job has a place: the remote-only properties do not apply.
    assert_eq!(
        missing(
            &office,
            "JobPosting",
            &["applicantLocationRequirements", "jobLocationType"]
        ),
        Vec::<String>::new()
    );
    assert_eq!(office["employmentType"], "FULL_TIME");
    assert_eq!(office["jobLocation"]["address"]["addressCountry"], "GB");
    let remote = data(&site, "/careers/remote/");
    assert_eq!(
        missing(&remote, "JobPosting", &["jobLocation"]),
        Vec::<String>::new()
    );
    assert_eq!(remote["jobLocationType"], "TELECOMMUTE");
    assert_eq!(remote["applicantLocationRequirements"][1]["name"], "IE");
    assert_eq!(remote["baseSalary"]["value"]["unitText"], "MONTH");
}

#[test]
fn the_check_fails_on_data_that_lacks_a_property() {
    let event = serde_json::json!({ "@type": "Event", "name": "x", "startDate": "2099-01-01" });
    let lacks = missing(&event, "Event", &[]);
    assert!(
        lacks.contains(&"required location".to_string()),
        "{lacks:?}"
    );
    assert!(
        lacks.contains(&"recommended offers".to_string()),
        "{lacks:?}"
    );
}
