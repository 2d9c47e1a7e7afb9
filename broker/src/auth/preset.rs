//! Named sets of ACL rules (`acl_preset`): every rule a kind of deployment
//! needs, written once here instead of copied into each configuration.
//!
//! A preset's rules are added to the `[[acl]]` rules written in the
//! configuration; rules only grant, so the two add up. A feature that gives
//! a deployment a new topic adds its rule to the preset here, next to the
//! others, with a test that the documented flows work under it.

use super::options::AclRule;

/// One rule of a preset, as it would be written in `[[acl]]`.
struct PresetRule {
    principal: &'static str,
    topics: &'static str,
    allow: &'static [&'static str],
}

/// The chat-inbox policy (docs/SECURITY.md §3): what the CLI's `produce`
/// and `consume`, the SDKs' sealed producer and consumer and the chat page
/// need, for any authenticated principal and nothing for anonymous callers.
/// No rule lets a principal describe a topic named after another principal,
/// so ListTopics is no list of who uses the broker: it shows a caller its
/// own topics and the conversations, whose names are random.
const CHAT_INBOX: &[PresetRule] = &[
    // Anyone authenticated may write to any inbox: that is what an inbox
    // is for (the SDK refuses records from senders the reader does not
    // trust).
    PresetRule {
        principal: "*",
        topics: "inbox.*",
        allow: &["produce"],
    },
    // Only its owner reads, describes and creates it (its first consume
    // creates it): nobody can make someone else's inbox, with settings of
    // their choosing, before its owner does. Groups: the default
    // `{principal}.*`.
    PresetRule {
        principal: "*",
        topics: "inbox.{principal}",
        allow: &["consume", "describe", "create"],
    },
    // Each principal's own state topic, where the SDKs keep a sealed
    // consumer's replay state and a sealed producer's DIRECT budgets, sealed
    // to the principal itself (docs/ENVELOPE.md §13): a sender needs it to
    // send, a reader with a group to commit.
    PresetRule {
        principal: "*",
        topics: "state.{principal}",
        allow: &["produce", "consume", "create", "describe"],
    },
    // Group conversations (the chat page's `group.<32 random hex>`): any
    // authenticated principal may make one, write to it and read it; what
    // is on it opens only for its members (MULTI records).
    PresetRule {
        principal: "*",
        topics: "group.*",
        allow: &["produce", "consume", "describe", "create"],
    },
    // MLS conversations (docs/MLS.md §2, §6.2). Group topics: any
    // authenticated principal may make one, write to it and read it; the
    // name is random and the records open only for members.
    PresetRule {
        principal: "*",
        topics: "mls.*",
        allow: &["produce", "consume", "create"],
    },
    // Welcomes: anyone may deliver one; only the device reads its own (and
    // makes its topic, when it publishes KeyPackages).
    PresetRule {
        principal: "*",
        topics: "welcome.*",
        allow: &["produce"],
    },
    PresetRule {
        principal: "*",
        topics: "welcome.{principal}",
        allow: &["consume", "describe", "create"],
    },
    // KeyPackages: anyone may claim one (each to one claimer, rate
    // limited) and read the last-resort one (partition 1); only the device
    // publishes its own. Claim and Fetch need no `describe`, and `describe`
    // on every device's topic would let ListTopics list every device.
    PresetRule {
        principal: "*",
        topics: "keypackages.*",
        allow: &["claim", "consume"],
    },
    PresetRule {
        principal: "*",
        topics: "keypackages.{principal}",
        allow: &["produce", "create", "describe"],
    },
    // Device lists: anyone who knows an account's fingerprint reads its
    // devices; only the account writes its own. Described only by their
    // own account, for the same reason: a listing is no directory of
    // accounts.
    PresetRule {
        principal: "*",
        topics: "dir.*",
        allow: &["consume"],
    },
    PresetRule {
        principal: "*",
        topics: "dir.{principal}",
        allow: &["produce", "create", "describe"],
    },
];

/// Every preset: its `acl_preset` name and its rules.
const PRESETS: &[(&str, &[PresetRule])] = &[("chat-inbox", CHAT_INBOX)];

/// The names `acl_preset` accepts.
pub fn names() -> impl Iterator<Item = &'static str> {
    PRESETS.iter().map(|(name, _)| *name)
}

/// The rules of preset `name`, as if written in `[[acl]]`; `None` for an
/// unknown name.
pub fn rules(name: &str) -> Option<Vec<AclRule>> {
    let (_, rules) = PRESETS.iter().find(|(n, _)| *n == name)?;
    Some(
        rules
            .iter()
            .map(|r| AclRule {
                principal: r.principal.to_owned(),
                topics: r.topics.to_owned(),
                allow: r.allow.iter().map(|a| (*a).to_owned()).collect(),
                groups: None,
            })
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::auth::{Acl, Action, AuthMode, Principal};

    #[test]
    fn every_preset_compiles() {
        for name in names() {
            let rules = rules(name).expect("listed");
            for mode in [AuthMode::Optional, AuthMode::Required] {
                Acl::compile(mode, &[], &rules).unwrap_or_else(|e| panic!("{name}: {e}"));
            }
        }
        assert!(rules("chat").is_none());
    }

    #[test]
    fn chat_inbox_lets_owners_create_their_own_topics_only() {
        let acl = Acl::compile(AuthMode::Required, &[], &rules("chat-inbox").unwrap()).unwrap();
        let (a, b) = (
            Principal::from_bytes([1; 32]),
            Principal::from_bytes([2; 32]),
        );
        let (alice, bob) = (acl.who(Some(a)), acl.who(Some(b)));
        let (inbox_a, inbox_b) = (format!("inbox.{a}"), format!("inbox.{b}"));
        let (state_a, state_b) = (format!("state.{a}"), format!("state.{b}"));
        for (action, topic, allowed) in [
            (Action::Produce, &inbox_b, true),
            (Action::Create, &inbox_b, false),
            (Action::Consume, &inbox_b, false),
            (Action::Describe, &inbox_b, false),
            (Action::Delete, &inbox_b, false),
            (Action::Create, &inbox_a, true),
            (Action::Consume, &inbox_a, true),
            (Action::Describe, &inbox_a, true),
            (Action::Delete, &inbox_a, false),
            (Action::Create, &state_a, true),
            (Action::Produce, &state_a, true),
            (Action::Consume, &state_a, true),
            (Action::Describe, &state_a, true),
            (Action::Create, &state_b, false),
            (Action::Produce, &state_b, false),
            (Action::Consume, &state_b, false),
        ] {
            assert_eq!(
                acl.allows(&alice, action, topic),
                allowed,
                "alice {action} {topic}"
            );
        }
        let group = "group.0123456789abcdef0123456789abcdef";
        for action in [
            Action::Create,
            Action::Produce,
            Action::Consume,
            Action::Describe,
        ] {
            assert!(acl.allows(&bob, action, group), "{action}");
        }
        assert!(!acl.allows(&bob, Action::Delete, group));
        assert!(acl.allows_group(&alice, &format!("{a}.chat"), &inbox_a));
        assert!(!acl.allows_group(&alice, &format!("{b}.chat"), &inbox_a));
        let anonymous = acl.who(None);
        assert!(!acl.allows(&anonymous, Action::Produce, &inbox_a));
        assert!(!acl.allows(&anonymous, Action::Consume, group));
    }

    #[test]
    fn chat_inbox_lets_anyone_read_device_lists_and_claim_keypackages() {
        let acl = Acl::compile(AuthMode::Required, &[], &rules("chat-inbox").unwrap()).unwrap();
        let (a, b) = (
            Principal::from_bytes([1; 32]),
            Principal::from_bytes([2; 32]),
        );
        let (alice, bob) = (acl.who(Some(a)), acl.who(Some(b)));
        let (dir_a, kp_a, welcome_a) = (
            format!("dir.{a}"),
            format!("keypackages.{a}"),
            format!("welcome.{a}"),
        );
        // What Bob needs to invite Alice: her device list, one of her
        // KeyPackages or her last-resort one, and her Welcome topic.
        for (action, topic, allowed) in [
            (Action::Consume, &dir_a, true),
            (Action::Produce, &dir_a, false),
            (Action::Create, &dir_a, false),
            (Action::Claim, &kp_a, true),
            (Action::Consume, &kp_a, true),
            (Action::Produce, &kp_a, false),
            (Action::Create, &kp_a, false),
            (Action::Produce, &welcome_a, true),
            (Action::Consume, &welcome_a, false),
            (Action::Create, &welcome_a, false),
        ] {
            assert_eq!(
                acl.allows(&bob, action, topic),
                allowed,
                "bob {action} {topic}"
            );
        }
        // What Alice needs to publish them.
        for (action, topic) in [
            (Action::Create, &dir_a),
            (Action::Produce, &dir_a),
            (Action::Consume, &dir_a),
            (Action::Create, &kp_a),
            (Action::Produce, &kp_a),
            (Action::Claim, &kp_a),
            (Action::Create, &welcome_a),
            (Action::Consume, &welcome_a),
        ] {
            assert!(acl.allows(&alice, action, topic), "alice {action} {topic}");
        }
        let anonymous = acl.who(None);
        assert!(!acl.allows(&anonymous, Action::Consume, &dir_a));
        assert!(!acl.allows(&anonymous, Action::Claim, &kp_a));
    }

    /// ListTopics and Metadata list only what the caller may describe: were
    /// any topic named after a principal describable by others, a listing
    /// would enumerate the broker's users (issue 37).
    #[test]
    fn chat_inbox_lets_only_its_owner_describe_a_topic_named_after_a_principal() {
        let acl = Acl::compile(AuthMode::Required, &[], &rules("chat-inbox").unwrap()).unwrap();
        let (a, b) = (
            Principal::from_bytes([1; 32]),
            Principal::from_bytes([2; 32]),
        );
        let (alice, bob) = (acl.who(Some(a)), acl.who(Some(b)));
        let named = |p: &Principal| {
            ["inbox", "state", "welcome", "keypackages", "dir"].map(|kind| format!("{kind}.{p}"))
        };
        for topic in named(&a) {
            assert!(acl.allows(&alice, Action::Describe, &topic), "{topic}");
            assert!(!acl.allows(&bob, Action::Describe, &topic), "{topic}");
        }
        for topic in named(&b) {
            assert!(!acl.allows(&alice, Action::Describe, &topic), "{topic}");
        }
        // MLS conversations are listed to no one: their names stay with
        // their members (and the broker). The chat page's older group.*
        // topics stay describable (its sealed consumer reads metadata).
        assert!(!acl.allows(
            &bob,
            Action::Describe,
            "mls.0123456789abcdef0123456789abcdef"
        ));
        assert!(acl.allows(
            &bob,
            Action::Describe,
            "group.0123456789abcdef0123456789abcdef"
        ));
    }
}
