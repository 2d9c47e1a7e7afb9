//! Access control: rules from the configuration, compiled once, checked per
//! request without allocating.
//!
//! A rule grants `allow` actions on topics matching `topics` to callers
//! matching `principal` (a fingerprint, `*` = any authenticated principal,
//! `anonymous`). Consumer groups belong to principals: a rule that allows
//! `consume` also says which groups it may use (`groups`, default
//! `{principal}.*`). Admins may do anything. Nothing is allowed unless a rule
//! allows it — except with `auth = "off"`, where everything is (the
//! behaviour before authentication existed). See docs/SECURITY.md.
//!
//! Patterns are globs: `*` matches any run of characters (dots included), `?`
//! one character, `{principal}` the caller's fingerprint in lowercase hex —
//! and never matches for an anonymous caller.

use std::fmt;

use super::options::{AclRule, AuthMode};
use super::principal::{PRINCIPAL_HEX_LEN, Principal};

/// Something a caller may be allowed to do to a topic.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Action {
    /// Append batches (`Produce`).
    Produce,
    /// Read batches and use group offsets (`Fetch`, `Commit`, `Committed`).
    Consume,
    /// Create the topic (`CreateTopic`, and auto-creation on demand).
    Create,
    /// Delete the topic (`DeleteTopic`).
    Delete,
    /// See the topic in `Metadata`.
    Describe,
    /// Take batches one claimer at a time (`Claim`). Not implied by
    /// `consume`, nor does it imply it: a claimer sees only what it claims.
    Claim,
}

impl Action {
    /// Every action, in the order the docs list them.
    pub const ALL: [Action; 6] = [
        Action::Produce,
        Action::Consume,
        Action::Create,
        Action::Delete,
        Action::Describe,
        Action::Claim,
    ];

    /// The name used in the configuration and in [`Denied`] messages.
    pub const fn as_str(self) -> &'static str {
        match self {
            Action::Produce => "produce",
            Action::Consume => "consume",
            Action::Create => "create",
            Action::Delete => "delete",
            Action::Describe => "describe",
            Action::Claim => "claim",
        }
    }

    /// Parses a configuration name (`produce`, `consume`, …).
    pub fn parse(name: &str) -> Option<Action> {
        Action::ALL.into_iter().find(|a| a.as_str() == name)
    }

    const fn bit(self) -> u8 {
        1 << self as u8
    }
}

impl fmt::Display for Action {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The caller of a request: anonymous, or a principal (and whether it is an
/// admin). Made by [`Acl::who`], once per connection and again after an
/// `Authenticate`, so the admin flag and the hex form used by `{principal}`
/// are computed once, not per request.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Who {
    principal: Option<Principal>,
    /// `principal` in lowercase hex, ready for `{principal}` matching.
    hex: [u8; PRINCIPAL_HEX_LEN],
    admin: bool,
}

impl Who {
    /// An unauthenticated caller.
    pub const ANONYMOUS: Who = Who {
        principal: None,
        hex: [0; PRINCIPAL_HEX_LEN],
        admin: false,
    };

    /// The authenticated principal, `None` when anonymous.
    pub const fn principal(&self) -> Option<Principal> {
        self.principal
    }

    /// Whether the caller is listed in `admins`.
    pub const fn is_admin(&self) -> bool {
        self.admin
    }

    /// Whether the caller has not authenticated.
    pub const fn is_anonymous(&self) -> bool {
        self.principal.is_none()
    }

    fn hex(&self) -> Option<&[u8; PRINCIPAL_HEX_LEN]> {
        self.principal.map(|_| &self.hex)
    }
}

impl fmt::Display for Who {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.principal {
            Some(p) => p.fmt(f),
            None => f.write_str("anonymous"),
        }
    }
}

impl fmt::Debug for Who {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Who({self}{})", if self.admin { ", admin" } else { "" })
    }
}

/// A refused request: says which action on which topic (or group) was
/// refused, and for whom. Its `Display` is the `Unauthorized` message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}", DeniedDisplay(self))]
pub struct Denied {
    /// The action refused.
    pub action: Action,
    /// The topic it was refused on.
    pub topic: String,
    /// The consumer group refused, when the topic was allowed but not the group.
    pub group: Option<String>,
    /// The caller, `None` when anonymous.
    pub principal: Option<Principal>,
}

struct DeniedDisplay<'a>(&'a Denied);

impl fmt::Display for DeniedDisplay<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let d = self.0;
        match &d.group {
            Some(group) => write!(
                f,
                "not authorized to use group {group} to {} {}",
                d.action, d.topic
            )?,
            None => write!(f, "not authorized to {} {}", d.action, d.topic)?,
        }
        match &d.principal {
            Some(p) => write!(f, " as {p}"),
            None => f.write_str(" as anonymous"),
        }
    }
}

/// An invalid `admins` or `acl` entry, naming it (`acl[2].allow`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{key}`: {message}")]
pub struct AclError {
    /// The entry, e.g. `acl[0].topics` or `admins[1]`.
    pub key: String,
    /// What is wrong with it.
    pub message: String,
}

/// Which callers a rule is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum PrincipalMatch {
    /// `*`: any authenticated principal.
    Authenticated,
    /// `anonymous`: callers that did not authenticate.
    Anonymous,
    /// One fingerprint.
    Exactly(Principal),
}

impl PrincipalMatch {
    fn matches(self, who: &Who) -> bool {
        match (self, who.principal) {
            (PrincipalMatch::Authenticated, Some(_)) => true,
            (PrincipalMatch::Anonymous, None) => true,
            (PrincipalMatch::Exactly(p), Some(q)) => p == q,
            _ => false,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Token {
    /// These bytes exactly.
    Literal(Box<str>),
    /// `?`: one character.
    One,
    /// `*`: any run of characters, possibly empty.
    Run,
    /// `{principal}`: the caller's 64 hex digits.
    Principal,
}

/// What a pattern will be matched against (decides which characters it may hold).
#[derive(Debug, Clone, Copy)]
enum PatternKind {
    Topics,
    Groups,
}

/// A compiled glob.
#[derive(Debug, Clone)]
struct Pattern {
    tokens: Box<[Token]>,
    uses_principal: bool,
}

impl Pattern {
    fn compile(src: &str, kind: PatternKind) -> Result<Pattern, String> {
        if src.is_empty() {
            return Err("the pattern is empty".into());
        }
        let mut tokens = Vec::new();
        let mut literal = String::new();
        let mut rest = src;
        while let Some(c) = rest.chars().next() {
            rest = &rest[c.len_utf8()..];
            let token = match c {
                '*' => Token::Run,
                '?' => Token::One,
                '{' => {
                    let Some((name, after)) = rest.split_once('}') else {
                        return Err("`{` without a closing `}`".into());
                    };
                    if name != "principal" {
                        return Err(format!(
                            "unknown placeholder `{{{name}}}` (only `{{principal}}` exists)"
                        ));
                    }
                    rest = after;
                    Token::Principal
                }
                '}' => return Err("`}` without an opening `{`".into()),
                c => {
                    let ok = match kind {
                        PatternKind::Topics => {
                            c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-')
                        }
                        PatternKind::Groups => !c.is_control(),
                    };
                    if !ok {
                        return Err(match kind {
                            PatternKind::Topics => format!(
                                "{c:?} never appears in a topic name (A-Z a-z 0-9 . _ -, and * ? {{principal}})"
                            ),
                            PatternKind::Groups => {
                                format!("{c:?} never appears in a group name")
                            }
                        });
                    }
                    literal.push(c);
                    continue;
                }
            };
            if !literal.is_empty() {
                tokens.push(Token::Literal(std::mem::take(&mut literal).into()));
            }
            // `**` is `*`; keeping one makes the matcher's backtracking cheaper.
            if !(token == Token::Run && tokens.last() == Some(&Token::Run)) {
                tokens.push(token);
            }
        }
        if !literal.is_empty() {
            tokens.push(Token::Literal(literal.into()));
        }
        let uses_principal = tokens.contains(&Token::Principal);
        Ok(Pattern {
            tokens: tokens.into(),
            uses_principal,
        })
    }

    /// Glob match of `input`, with `{principal}` = `hex` (never matching when
    /// `None`). Linear scan with one backtrack point (the last `*`): each
    /// other token has a fixed length, so an earlier `*` never needs to be
    /// revisited. No allocation.
    fn matches(&self, input: &str, hex: Option<&[u8; PRINCIPAL_HEX_LEN]>) -> bool {
        if self.uses_principal && hex.is_none() {
            return false;
        }
        let s = input.as_bytes();
        let (mut ti, mut si) = (0usize, 0usize);
        // (token index after the `*`, input position the `*` has consumed up to)
        let mut star: Option<(usize, usize)> = None;
        loop {
            if let Some(token) = self.tokens.get(ti) {
                let advanced = match token {
                    Token::Run => {
                        star = Some((ti + 1, si));
                        Some(si)
                    }
                    Token::One => (si < s.len()).then(|| si + utf8_len(s[si])),
                    Token::Literal(lit) => {
                        s[si..].starts_with(lit.as_bytes()).then(|| si + lit.len())
                    }
                    Token::Principal => hex
                        .filter(|h| s[si..].starts_with(&h[..]))
                        .map(|h| si + h.len()),
                };
                if let Some(next) = advanced {
                    ti += 1;
                    si = next;
                    continue;
                }
            } else if si == s.len() {
                return true;
            }
            match star {
                Some((after_star, consumed)) if consumed < s.len() => {
                    let consumed = consumed + utf8_len(s[consumed]);
                    star = Some((after_star, consumed));
                    ti = after_star;
                    si = consumed;
                }
                _ => return false,
            }
        }
    }
}

/// Length of the UTF-8 sequence a leading byte starts (inputs are `&str`,
/// so positions reached by whole-character steps are always leading bytes).
fn utf8_len(lead: u8) -> usize {
    match lead {
        0xf0.. => 4,
        0xe0.. => 3,
        0xc0.. => 2,
        _ => 1,
    }
}

/// One compiled rule.
#[derive(Debug, Clone)]
struct Rule {
    principal: PrincipalMatch,
    topics: Pattern,
    groups: Pattern,
    /// [`Action::bit`]s.
    actions: u8,
}

/// The broker's access policy, compiled from `auth`, `admins` and `[[acl]]`.
#[derive(Debug, Clone)]
pub struct Acl {
    mode: AuthMode,
    /// Sorted, for binary search.
    admins: Vec<Principal>,
    rules: Vec<Rule>,
}

/// The groups a `consume` rule may use unless it says otherwise.
pub const DEFAULT_GROUPS: &str = "{principal}.*";

impl Acl {
    /// `auth = "off"`: everything is allowed to everyone.
    pub fn allow_all() -> Acl {
        Acl {
            mode: AuthMode::Off,
            admins: Vec::new(),
            rules: Vec::new(),
        }
    }

    /// Compiles the `auth` mode, the `admins` and the `acl` rules of the
    /// configuration.
    ///
    /// # Errors
    /// An [`AclError`] naming the first bad entry: a principal that is not
    /// 64 hex digits, `*` or `anonymous`; an unknown action; a bad glob;
    /// `{principal}` in an `anonymous` rule (it could never match); `groups`
    /// on a rule without `consume`; rules or admins with `auth = "off"`
    /// (they would be ignored).
    pub fn compile(mode: AuthMode, admins: &[String], rules: &[AclRule]) -> Result<Acl, AclError> {
        let err = |key: String, message: String| AclError { key, message };
        if mode == AuthMode::Off && !(admins.is_empty() && rules.is_empty()) {
            let key = if rules.is_empty() { "admins" } else { "acl" };
            return Err(err(
                key.into(),
                "ignored with auth = \"off\" (everyone may do everything); set auth = \"optional\" or \"required\"".into(),
            ));
        }
        let mut admin_list = Vec::with_capacity(admins.len());
        for (i, hex) in admins.iter().enumerate() {
            let p = Principal::from_hex(hex).ok_or_else(|| {
                err(
                    format!("admins[{i}]"),
                    format!("{hex:?} is not a fingerprint (64 hex digits)"),
                )
            })?;
            admin_list.push(p);
        }
        admin_list.sort_unstable();
        admin_list.dedup();
        let mut compiled = Vec::with_capacity(rules.len());
        for (i, rule) in rules.iter().enumerate() {
            let key = |field: &str| format!("acl[{i}].{field}");
            let principal = match rule.principal.as_str() {
                "*" => PrincipalMatch::Authenticated,
                "anonymous" => PrincipalMatch::Anonymous,
                hex => PrincipalMatch::Exactly(Principal::from_hex(hex).ok_or_else(|| {
                    err(
                        key("principal"),
                        format!(
                            "{hex:?} is not a fingerprint (64 hex digits), \"*\" (any authenticated) or \"anonymous\""
                        ),
                    )
                })?),
            };
            if rule.allow.is_empty() {
                return Err(err(key("allow"), "allows nothing (empty list)".into()));
            }
            let mut actions = 0u8;
            for name in &rule.allow {
                let action = Action::parse(name).ok_or_else(|| {
                    err(
                        key("allow"),
                        format!(
                            "unknown action {name:?} (expected produce, consume, create, delete or describe)"
                        ),
                    )
                })?;
                actions |= action.bit();
            }
            let topics = Pattern::compile(&rule.topics, PatternKind::Topics)
                .map_err(|m| err(key("topics"), format!("{:?}: {m}", rule.topics)))?;
            let groups_src = rule.groups.as_deref().unwrap_or(DEFAULT_GROUPS);
            let groups = Pattern::compile(groups_src, PatternKind::Groups)
                .map_err(|m| err(key("groups"), format!("{groups_src:?}: {m}")))?;
            if rule.groups.is_some() && actions & Action::Consume.bit() == 0 {
                return Err(err(
                    key("groups"),
                    "only applies to rules that allow consume".into(),
                ));
            }
            if principal == PrincipalMatch::Anonymous {
                if topics.uses_principal {
                    return Err(err(
                        key("topics"),
                        "`{principal}` never matches for anonymous callers".into(),
                    ));
                }
                if rule.groups.is_some() && groups.uses_principal {
                    return Err(err(
                        key("groups"),
                        "`{principal}` never matches for anonymous callers".into(),
                    ));
                }
            }
            compiled.push(Rule {
                principal,
                topics,
                groups,
                actions,
            });
        }
        Ok(Acl {
            mode,
            admins: admin_list,
            rules: compiled,
        })
    }

    /// The authentication mode.
    pub const fn mode(&self) -> AuthMode {
        self.mode
    }

    /// The caller for a connection: `None` before (or without) `Authenticate`.
    pub fn who(&self, principal: Option<Principal>) -> Who {
        match principal {
            None => Who::ANONYMOUS,
            Some(p) => Who {
                principal: Some(p),
                hex: p.to_hex_bytes(),
                admin: self.admins.binary_search(&p).is_ok(),
            },
        }
    }

    /// Whether everything is allowed to `who` without looking at rules.
    fn unrestricted(&self, who: &Who) -> bool {
        self.mode == AuthMode::Off || who.admin
    }

    /// Whether `who` may do `action` on `topic`. Allocation-free.
    pub fn allows(&self, who: &Who, action: Action, topic: &str) -> bool {
        if self.unrestricted(who) {
            return true;
        }
        if self.mode == AuthMode::Required && who.is_anonymous() {
            return false;
        }
        let hex = who.hex();
        self.rules.iter().any(|r| {
            r.actions & action.bit() != 0
                && r.principal.matches(who)
                && r.topics.matches(topic, hex)
        })
    }

    /// Whether `who` may consume `topic` using consumer group `group`
    /// (`Commit`, `Committed`): one rule must allow `consume` on the topic
    /// and its `groups` pattern must match. Allocation-free.
    pub fn allows_group(&self, who: &Who, group: &str, topic: &str) -> bool {
        if self.unrestricted(who) {
            return true;
        }
        if self.mode == AuthMode::Required && who.is_anonymous() {
            return false;
        }
        let hex = who.hex();
        self.rules.iter().any(|r| {
            r.actions & Action::Consume.bit() != 0
                && r.principal.matches(who)
                && r.topics.matches(topic, hex)
                && r.groups.matches(group, hex)
        })
    }

    /// [`Acl::allows`], with the refusal to send back as `Unauthorized`.
    ///
    /// # Errors
    /// [`Denied`] naming the action, the topic and the caller.
    pub fn check(&self, who: &Who, action: Action, topic: &str) -> Result<(), Denied> {
        if self.allows(who, action, topic) {
            Ok(())
        } else {
            Err(Denied {
                action,
                topic: topic.to_owned(),
                group: None,
                principal: who.principal,
            })
        }
    }

    /// [`Acl::allows_group`], with the refusal to send back as `Unauthorized`.
    ///
    /// # Errors
    /// [`Denied`] naming the topic (when the topic itself may not be
    /// consumed) or the group (when the topic may be, but not with it).
    pub fn check_group(&self, who: &Who, group: &str, topic: &str) -> Result<(), Denied> {
        if self.allows_group(who, group, topic) {
            return Ok(());
        }
        let topic_allowed = self.allows(who, Action::Consume, topic);
        Err(Denied {
            action: Action::Consume,
            topic: topic.to_owned(),
            group: topic_allowed.then(|| group.to_owned()),
            principal: who.principal,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pat(src: &str) -> Pattern {
        Pattern::compile(src, PatternKind::Groups).unwrap()
    }

    fn fp(byte: u8) -> Principal {
        Principal::from_bytes([byte; 32])
    }

    fn rule(principal: &str, topics: &str, allow: &[&str], groups: Option<&str>) -> AclRule {
        AclRule {
            principal: principal.into(),
            topics: topics.into(),
            allow: allow.iter().map(|s| s.to_string()).collect(),
            groups: groups.map(str::to_owned),
        }
    }

    /// The chat-inbox policy from docs/SECURITY.md.
    fn inbox(mode: AuthMode, admins: &[Principal]) -> Acl {
        let admins: Vec<String> = admins.iter().map(|p| p.to_string()).collect();
        Acl::compile(
            mode,
            &admins,
            &[
                rule("*", "inbox.*", &["produce"], None),
                rule("*", "inbox.{principal}", &["consume", "describe"], None),
            ],
        )
        .unwrap()
    }

    #[test]
    fn glob_semantics() {
        let hex = fp(0xab).to_hex_bytes();
        let h = Some(&hex);
        assert!(pat("*").matches("", h));
        assert!(pat("*").matches("a.b.c", h));
        assert!(pat("inbox.*").matches("inbox.", h));
        assert!(pat("inbox.*").matches("inbox.x.y", h), "* crosses dots");
        assert!(!pat("inbox.*").matches("inbox", h));
        assert!(!pat("inbox.*").matches("xinbox.a", h));
        assert!(pat("a?c").matches("abc", h));
        assert!(!pat("a?c").matches("ac", h));
        assert!(!pat("a?c").matches("abbc", h));
        assert!(
            pat("a?c").matches("aéc", h),
            "? is one character, not one byte"
        );
        assert!(pat("*.log").matches("a.log.log", h));
        assert!(pat("a*b*c").matches("aXbYbZc", h));
        assert!(!pat("a*b*c").matches("aXbYbZ", h));
        assert!(pat("**x").matches("abx", h));
        assert!(pat("*é*").matches("ééé", h));
        let own = format!("inbox.{}", fp(0xab));
        assert!(pat("inbox.{principal}").matches(&own, h));
        assert!(!pat("inbox.{principal}").matches(&format!("{own}x"), h));
        assert!(!pat("inbox.{principal}").matches(&format!("inbox.{}", fp(0xac)), h));
        assert!(
            !pat("inbox.{principal}").matches(&own, None),
            "anonymous never matches"
        );
        assert!(pat("{principal}.*").matches(&format!("{}.chat", fp(0xab)), h));
        assert!(!pat("{principal}.*").matches(&format!("{}", fp(0xab)), h));
    }

    #[test]
    fn bad_globs_are_refused() {
        for (bad, kind) in [
            ("", PatternKind::Topics),
            ("inbox.{principal", PatternKind::Topics),
            ("inbox.{user}", PatternKind::Topics),
            ("inbox}", PatternKind::Topics),
            ("inbox/x", PatternKind::Topics),
            ("in box", PatternKind::Topics),
            ("a\u{7}b", PatternKind::Groups),
        ] {
            assert!(Pattern::compile(bad, kind).is_err(), "{bad:?} accepted");
        }
        Pattern::compile("a b/é", PatternKind::Groups).unwrap();
    }

    #[test]
    fn inbox_policy() {
        let (alice_p, bob_p, mallory_p, admin_p) = (fp(1), fp(2), fp(3), fp(4));
        let acl = inbox(AuthMode::Required, &[admin_p]);
        let alice = acl.who(Some(alice_p));
        let bob = acl.who(Some(bob_p));
        let mallory = acl.who(Some(mallory_p));
        let admin = acl.who(Some(admin_p));
        let anon = acl.who(None);
        assert!(admin.is_admin() && !bob.is_admin());
        let bob_inbox = format!("inbox.{bob_p}");

        acl.check(&alice, Action::Produce, &bob_inbox).unwrap();
        let denied = acl.check(&alice, Action::Consume, &bob_inbox).unwrap_err();
        assert_eq!(
            denied.to_string(),
            format!("not authorized to consume {bob_inbox} as {alice_p}")
        );
        assert!(!acl.allows(&alice, Action::Describe, &bob_inbox));
        assert!(!acl.allows(&alice, Action::Delete, &bob_inbox));
        assert!(!acl.allows(&alice, Action::Create, &bob_inbox));

        acl.check(&bob, Action::Consume, &bob_inbox).unwrap();
        acl.check(&bob, Action::Describe, &bob_inbox).unwrap();
        acl.check_group(&bob, &format!("{bob_p}.chat"), &bob_inbox)
            .unwrap();
        let denied = acl.check_group(&bob, "chat", &bob_inbox).unwrap_err();
        assert_eq!(
            denied.to_string(),
            format!("not authorized to use group chat to consume {bob_inbox} as {bob_p}")
        );
        assert!(!acl.allows(&bob, Action::Consume, "inbox.other"));
        assert!(!acl.allows(&bob, Action::Produce, "chat"));

        for action in Action::ALL {
            assert!(!acl.allows(&anon, action, &bob_inbox), "anonymous {action}");
            assert!(acl.allows(&admin, action, &bob_inbox), "admin {action}");
            assert!(
                acl.allows(&admin, action, "anything.at-all"),
                "admin {action}"
            );
        }
        assert_eq!(
            acl.check(&anon, Action::Produce, &bob_inbox)
                .unwrap_err()
                .to_string(),
            format!("not authorized to produce {bob_inbox} as anonymous")
        );
        acl.check_group(&admin, "whatever", &bob_inbox).unwrap();

        assert!(!acl.allows(&mallory, Action::Consume, &bob_inbox));
        let denied = acl
            .check_group(&mallory, &format!("{bob_p}.chat"), &bob_inbox)
            .unwrap_err();
        assert_eq!(denied.group, None, "the topic itself is refused first");
        // Mallory's own group on her own inbox is fine, Bob's group is not.
        let mallory_inbox = format!("inbox.{mallory_p}");
        acl.check_group(&mallory, &format!("{mallory_p}.x"), &mallory_inbox)
            .unwrap();
        let denied = acl
            .check_group(&mallory, &format!("{bob_p}.chat"), &mallory_inbox)
            .unwrap_err();
        assert_eq!(
            denied.group.as_deref(),
            Some(format!("{bob_p}.chat").as_str())
        );
    }

    #[test]
    fn modes() {
        let anon = Who::ANONYMOUS;
        let off = Acl::allow_all();
        for action in Action::ALL {
            assert!(off.allows(&anon, action, "x"));
        }
        assert!(off.allows_group(&anon, "g", "x"));

        let acl = Acl::compile(
            AuthMode::Optional,
            &[],
            &[
                rule("anonymous", "public.*", &["consume", "describe"], Some("*")),
                rule("*", "inbox.*", &["produce"], None),
            ],
        )
        .unwrap();
        assert!(acl.allows(&anon, Action::Consume, "public.news"));
        assert!(acl.allows_group(&anon, "readers", "public.news"));
        assert!(!acl.allows(&anon, Action::Produce, "public.news"));
        assert!(!acl.allows(&anon, Action::Produce, "inbox.x"));
        let carol = acl.who(Some(fp(9)));
        assert!(acl.allows(&carol, Action::Produce, "inbox.x"));
        assert!(
            !acl.allows(&carol, Action::Consume, "public.news"),
            "anonymous rules are for anonymous callers only"
        );

        // The same rules with auth required: anonymous callers get nothing.
        let required = Acl::compile(
            AuthMode::Required,
            &[],
            &[rule("anonymous", "public.*", &["consume"], None)],
        )
        .unwrap();
        assert!(!required.allows(&anon, Action::Consume, "public.news"));

        // Anonymous with the default groups pattern may use no group.
        let acl = Acl::compile(
            AuthMode::Optional,
            &[],
            &[rule("anonymous", "*", &["consume"], None)],
        )
        .unwrap();
        assert!(acl.allows(&anon, Action::Consume, "t"));
        assert!(!acl.allows_group(&anon, "g", "t"));
    }

    #[test]
    fn exact_principal_rules() {
        let dave = fp(0xd0);
        let acl = Acl::compile(
            AuthMode::Required,
            &[],
            &[rule(
                &dave.to_string().to_uppercase(),
                "ops.*",
                &["create", "delete"],
                None,
            )],
        )
        .unwrap();
        let who = acl.who(Some(dave));
        assert!(acl.allows(&who, Action::Create, "ops.a"));
        assert!(acl.allows(&who, Action::Delete, "ops.a"));
        assert!(!acl.allows(&who, Action::Produce, "ops.a"));
        assert!(!acl.allows(&acl.who(Some(fp(1))), Action::Create, "ops.a"));
    }

    #[test]
    fn compile_errors_name_the_entry() {
        let cases: Vec<(AuthMode, Vec<String>, Vec<AclRule>, &str)> = vec![
            (AuthMode::Required, vec!["abc".into()], vec![], "admins[0]"),
            (
                AuthMode::Required,
                vec![],
                vec![rule("*", "a", &["read"], None)],
                "acl[0].allow",
            ),
            (
                AuthMode::Required,
                vec![],
                vec![
                    rule("*", "a", &["produce"], None),
                    rule("bob", "a", &["produce"], None),
                ],
                "acl[1].principal",
            ),
            (
                AuthMode::Required,
                vec![],
                vec![rule("*", "a{", &["produce"], None)],
                "acl[0].topics",
            ),
            (
                AuthMode::Required,
                vec![],
                vec![rule("*", "a", &[], None)],
                "acl[0].allow",
            ),
            (
                AuthMode::Required,
                vec![],
                vec![rule("*", "a", &["produce"], Some("*"))],
                "acl[0].groups",
            ),
            (
                AuthMode::Required,
                vec![],
                vec![rule("*", "a", &["consume"], Some("{x}"))],
                "acl[0].groups",
            ),
            (
                AuthMode::Optional,
                vec![],
                vec![rule("anonymous", "inbox.{principal}", &["consume"], None)],
                "acl[0].topics",
            ),
            (
                AuthMode::Off,
                vec![],
                vec![rule("*", "a", &["produce"], None)],
                "acl",
            ),
            (AuthMode::Off, vec![fp(1).to_string()], vec![], "admins"),
        ];
        for (mode, admins, rules, key) in cases {
            let e = Acl::compile(mode, &admins, &rules).unwrap_err();
            assert_eq!(e.key, key, "{e}");
            assert!(e.to_string().starts_with(&format!("`{key}`: ")), "{e}");
        }
    }
}
