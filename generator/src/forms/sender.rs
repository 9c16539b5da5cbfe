//! Who sent a row, as the rate limit counts it.

/// The address the proxy in front saw. Cloudflare, in front of Supabase's API,
/// overwrites `CF-Connecting-IP` with it, and appends it to any
/// `X-Forwarded-For` the client wrote, so only the last entry of that header is
/// the proxy's; everything before it is the client's to choose (docs/deploy.md,
/// "Who sent a message"). An IPv6 address counts as its /64, which one client
/// holds whole; an IPv4-mapped one as the IPv4 address. The migration's
/// `private.contact_sender` is the same rule in SQL.
pub fn sender(connecting_ip: Option<&str>, forwarded_for: Option<&str>) -> Option<String> {
    let given = connecting_ip
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .or_else(|| {
            forwarded_for
                .and_then(|v| v.rsplit(',').next())
                .map(str::trim)
                .filter(|s| !s.is_empty())
        })?;
    Some(match given.parse::<std::net::IpAddr>() {
        Ok(address) => sender_address(address),
        Err(_) => given.to_string(),
    })
}

/// An address as the rate limit counts it: IPv4 itself, IPv6 its /64.
pub fn sender_address(address: std::net::IpAddr) -> String {
    match address {
        std::net::IpAddr::V4(v4) => v4.to_string(),
        std::net::IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => v4.to_string(),
            None => {
                let s = v6.segments();
                let network = std::net::Ipv6Addr::new(s[0], s[1], s[2], s[3], 0, 0, 0, 0);
                format!("{network}/64")
            }
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sender_is_the_address_the_proxy_saw_never_the_clients_words() {
        // Cloudflare overwrites CF-Connecting-IP, whatever the client sent.
        assert_eq!(
            sender(Some("203.0.113.7"), Some("1.2.3.4, 203.0.113.7")).as_deref(),
            Some("203.0.113.7")
        );
        // Else the entry the last proxy appended; the ones before are forged.
        assert_eq!(
            sender(None, Some("6.6.6.6, 7.7.7.7,203.0.113.7")).as_deref(),
            Some("203.0.113.7")
        );
        assert_eq!(
            sender(None, Some(" 203.0.113.7 ")).as_deref(),
            Some("203.0.113.7")
        );
        assert_eq!(sender(Some(" "), Some("")), None);
        assert_eq!(sender(None, None), None);
    }

    #[test]
    fn an_ipv6_sender_is_its_slash_64() {
        for (given, key) in [
            ("2001:db8:1:2:3:4:5:6", "2001:db8:1:2::/64"),
            ("2001:db8:1:2:ffff::1", "2001:db8:1:2::/64"),
            ("2001:db8::1", "2001:db8::/64"),
            ("::ffff:198.51.100.9", "198.51.100.9"),
        ] {
            assert_eq!(sender(Some(given), None).as_deref(), Some(key), "{given}");
        }
    }
}
