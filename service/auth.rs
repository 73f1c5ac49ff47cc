//! Optional bearer-token check, as a tonic interceptor on the services that need it.
//!
//! Off unless tokens are configured (`--auth-tokens-file`, `VARIANT_AUTH_TOKENS`). When on, a call
//! must carry `authorization: Bearer <token>` with one of the tokens, else it gets
//! `UNAUTHENTICATED`. `grpc.health.v1` is not wrapped, so Kubernetes probes and load balancers
//! keep working without a token.

use std::{path::Path, sync::Arc};

use tonic::{Request, Status, service::Interceptor};

use crate::config::Config;

/// Prefix of the `authorization` header value.
const BEARER: &str = "Bearer ";

/// Why the token list could not be loaded.
#[derive(Debug, thiserror::Error)]
#[error("cannot read auth tokens file {path}: {source}")]
pub struct TokensError {
    /// The `--auth-tokens-file` path.
    pub path: String,
    /// The I/O error.
    pub source: std::io::Error,
}

/// The bearer-token interceptor; accepts everything when no token is configured.
#[derive(Debug, Clone, Default)]
pub struct BearerAuth {
    tokens: Arc<Vec<Vec<u8>>>,
}

impl BearerAuth {
    /// Accepts calls carrying one of `tokens` (none = auth off). Blank tokens are ignored.
    pub fn new<I, S>(tokens: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let tokens = tokens
            .into_iter()
            .map(|t| t.as_ref().trim().as_bytes().to_vec())
            .filter(|t| !t.is_empty())
            .collect();
        BearerAuth {
            tokens: Arc::new(tokens),
        }
    }

    /// The tokens from the configuration: the file (one per line, `#` comments) and the list.
    ///
    /// # Errors
    /// The tokens file cannot be read.
    pub fn from_config(config: &Config) -> Result<Self, TokensError> {
        let mut tokens: Vec<String> = config.auth_tokens.clone();
        if let Some(path) = &config.auth_tokens_file {
            tokens.extend(read_tokens(path)?);
        }
        Ok(Self::new(tokens))
    }

    /// True when calls need a token.
    pub fn enabled(&self) -> bool {
        !self.tokens.is_empty()
    }

    /// Compares against every token without stopping early, so the answer time does not reveal
    /// how much of a guess was right.
    fn accepts(&self, presented: &[u8]) -> bool {
        self.tokens.iter().fold(false, |found, token| {
            found | constant_time_eq(token, presented)
        })
    }
}

fn read_tokens(path: &Path) -> Result<Vec<String>, TokensError> {
    let text = std::fs::read_to_string(path).map_err(|source| TokensError {
        path: path.display().to_string(),
        source,
    })?;
    Ok(text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(str::to_owned)
        .collect())
}

/// Equality whose time depends only on the lengths.
fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

impl Interceptor for BearerAuth {
    fn call(&mut self, request: Request<()>) -> Result<Request<()>, Status> {
        if !self.enabled() {
            return Ok(request);
        }
        let presented = request
            .metadata()
            .get("authorization")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix(BEARER));
        match presented {
            Some(token) if self.accepts(token.trim().as_bytes()) => Ok(request),
            // One message for missing and wrong tokens: do not help guessing.
            _ => Err(Status::unauthenticated("missing or invalid bearer token")),
        }
    }
}

#[cfg(test)]
mod tests {
    use tonic::{Code, metadata::MetadataValue};

    use super::*;

    fn call(auth: &mut BearerAuth, header: Option<&str>) -> Result<(), Code> {
        let mut request = Request::new(());
        if let Some(h) = header {
            request
                .metadata_mut()
                .insert("authorization", MetadataValue::try_from(h).expect("ascii"));
        }
        auth.call(request).map(drop).map_err(|s| s.code())
    }

    #[test]
    fn no_tokens_means_no_check() {
        let mut auth = BearerAuth::new(Vec::<String>::new());
        assert!(!auth.enabled());
        assert_eq!(call(&mut auth, None), Ok(()));
    }

    #[test]
    fn only_a_configured_bearer_token_is_accepted() {
        let mut auth = BearerAuth::new(["alpha", " beta ", ""]);
        assert_eq!(call(&mut auth, Some("Bearer beta")), Ok(()));
        assert_eq!(call(&mut auth, Some("Bearer alpha")), Ok(()));
        assert_eq!(call(&mut auth, None), Err(Code::Unauthenticated));
        assert_eq!(
            call(&mut auth, Some("Bearer gamma")),
            Err(Code::Unauthenticated)
        );
        assert_eq!(call(&mut auth, Some("Bearer ")), Err(Code::Unauthenticated));
        assert_eq!(call(&mut auth, Some("alpha")), Err(Code::Unauthenticated));
    }

    #[test]
    fn token_files_skip_comments_and_blank_lines() {
        let path = std::env::temp_dir().join(format!("variant-tokens-{}", std::process::id()));
        std::fs::write(&path, "# ops\n\nfirst\n  second  \n").expect("write");
        let tokens = read_tokens(&path).expect("read");
        let _ = std::fs::remove_file(&path);
        assert_eq!(tokens, ["first", "second"]);
    }
}
