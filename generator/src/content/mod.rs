//! Everything the site's content is, read from `content/`: the load stage
//! (`load.rs`: site.yaml, the strings and every page, into typed models), the
//! publish step (`publish.rs`: what a build holds back, the listings, the
//! redirects), the references stage (`references/`), and the models the later
//! stages read. docs/architecture.md ("Inside `content/`") lists the rooms in
//! their order.

pub mod blocks;
pub mod config;
pub mod entries;
pub mod files;
pub mod folders;
pub mod highlight;
pub mod languages;
pub mod listings;
pub mod load;
pub mod markdown;
pub mod matter;
pub mod openings;
pub mod page;
pub mod publish;
pub mod publishing;
pub mod references;
pub mod routes;
pub mod settings;
pub mod site;
pub mod staleness;
pub mod strings;
pub mod translatable;
pub mod translation_index;
pub mod values;
pub mod yaml;

pub use config::{message_delivery, retention_months, storage_settings, timeouts};
pub use files::{read_text, Fingerprint};
pub use load::{load, load_cached, load_draft, Cache, Content, Failure, Unloaded};
pub use page::{Article, Page};
pub use routes::{canonical_href, canonical_url, route_for};
pub use site::SiteConfig;
pub use values::{Date, Href, Icon, ImageSrc, Layout, Markdown};
