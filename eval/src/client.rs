//! Posting a turn to a provider: the key in its header, bounded answers, and the retries the
//! providers ask for (429 with `retry-after`, Anthropic's 529 overloaded, a 5xx), never
//! the ones that cannot help (a spent quota, a refused request).

use std::time::{Duration, Instant};

use serde_json::Value;

use crate::transcript::{Event, Writer};
use crate::wire::Provider;

/// The largest answer read from a provider.
const MAX_ANSWER: usize = 32 * 1024 * 1024;

/// How often, and how long, a turn is tried again.
#[derive(Debug, Clone, Copy)]
pub struct RetryPolicy {
    /// Attempts after the first.
    pub retries: u32,
    /// The first wait when the provider names none; doubled each time.
    pub first_wait: Duration,
    /// The longest wait, whatever `retry-after` says.
    pub longest_wait: Duration,
    /// How long one attempt may take.
    pub timeout: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            retries: 4,
            first_wait: Duration::from_secs(1),
            longest_wait: Duration::from_secs(60),
            timeout: Duration::from_secs(300),
        }
    }
}

/// A provider's endpoint with its key.
pub struct ProviderClient {
    http: reqwest::Client,
    provider: Provider,
    endpoint: String,
    headers: Vec<(&'static str, String)>,
    policy: RetryPolicy,
}

impl ProviderClient {
    /// A client of `provider` at `base` for `model`, with `key` (none for a local server).
    pub fn new(
        provider: Provider,
        base: &str,
        model: &str,
        key: Option<&str>,
        policy: RetryPolicy,
    ) -> Result<ProviderClient, String> {
        let http = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .connect_timeout(Duration::from_secs(10))
            .timeout(policy.timeout)
            .build()
            .map_err(|e| format!("cannot make an HTTP client: {e}"))?;
        Ok(ProviderClient {
            http,
            provider,
            endpoint: provider.endpoint(base, model),
            headers: key.map(|k| provider.key_headers(k)).unwrap_or_default(),
            policy,
        })
    }

    /// Posts `body` for turn `turn`, trying again as the provider asks; each attempt's answer
    /// goes into `transcript`. The answer's JSON, or why there is none.
    pub async fn send(
        &self,
        turn: u32,
        body: &Value,
        transcript: &mut Writer,
    ) -> Result<(Value, u64), String> {
        let bytes = serde_json::to_vec(body).map_err(|e| e.to_string())?;
        let mut waited_ms = 0;
        for attempt in 1..=self.policy.retries + 1 {
            let started = Instant::now();
            let outcome = self.attempt(&bytes).await;
            let ms = started.elapsed().as_millis() as u64;
            let last = attempt > self.policy.retries;
            let (status, answer, verdict) = match outcome {
                Ok((status, text, retry_after)) => {
                    let answer = serde_json::from_str::<Value>(&text)
                        .unwrap_or_else(|_| Value::String(cut(&text, 2000)));
                    let verdict = judge(
                        self.provider,
                        status,
                        &answer,
                        retry_after,
                        attempt,
                        &self.policy,
                    );
                    (status, answer, verdict)
                }
                Err(why) => (
                    0,
                    Value::String(why.clone()),
                    Verdict::Again(backoff(attempt, &self.policy), why),
                ),
            };
            let retry_in_ms = match &verdict {
                Verdict::Again(wait, _) if !last => Some(wait.as_millis() as u64),
                _ => None,
            };
            transcript
                .push(Event::Response {
                    turn,
                    attempt,
                    status,
                    ms,
                    retry_in_ms,
                    body: answer.clone(),
                })
                .map_err(|e| format!("cannot write the transcript: {e}"))?;
            match verdict {
                Verdict::Done => {
                    if !answer.is_object() {
                        return Err(format!(
                            "the provider answered {status} with something that is not a JSON object: {}",
                            cut(&answer.to_string(), 200)
                        ));
                    }
                    return Ok((answer, ms + waited_ms));
                }
                Verdict::Fail(why) => return Err(why),
                Verdict::Again(wait, why) => {
                    if last {
                        return Err(format!("{why}; gave up after {attempt} attempts"));
                    }
                    tokio::time::sleep(wait).await;
                    waited_ms += wait.as_millis() as u64;
                }
            }
        }
        unreachable!("the last attempt returns")
    }

    /// One POST: the status, the body's text and the `retry-after` wait, or why none came.
    async fn attempt(&self, body: &[u8]) -> Result<(u16, String, Option<Duration>), String> {
        let mut request = self
            .http
            .post(&self.endpoint)
            .header("content-type", "application/json")
            .body(body.to_vec());
        for (name, value) in &self.headers {
            request = request.header(*name, value);
        }
        let mut response = request.send().await.map_err(|e| {
            // reqwest's words name the URL, never the headers: no key in them.
            format!("no answer from {}: {}", self.endpoint, error_chain(&e))
        })?;
        let status = response.status().as_u16();
        let retry_after = response
            .headers()
            .get("retry-after")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.trim().parse::<f64>().ok())
            .filter(|s| s.is_finite() && *s >= 0.0)
            .map(Duration::from_secs_f64);
        let mut bytes = Vec::new();
        while let Some(chunk) = response.chunk().await.map_err(|e| {
            format!(
                "the answer from {} broke off: {}",
                self.endpoint,
                error_chain(&e)
            )
        })? {
            if bytes.len() + chunk.len() > MAX_ANSWER {
                return Err(format!(
                    "the answer from {} is larger than {} MiB",
                    self.endpoint,
                    MAX_ANSWER >> 20
                ));
            }
            bytes.extend_from_slice(&chunk);
        }
        Ok((
            status,
            String::from_utf8_lossy(&bytes).into_owned(),
            retry_after,
        ))
    }
}

/// What to do with an answer.
enum Verdict {
    Done,
    Again(Duration, String),
    Fail(String),
}

fn judge(
    provider: Provider,
    status: u16,
    answer: &Value,
    retry_after: Option<Duration>,
    attempt: u32,
    policy: &RetryPolicy,
) -> Verdict {
    if (200..300).contains(&status) {
        return Verdict::Done;
    }
    let message = Provider::error_message(answer)
        .map(|m| format!(": {}", cut(&m, 300)))
        .unwrap_or_default();
    let said = format!("{} answered {status}{message}", provider.as_str());
    // A spent quota or spending limit answers 429 too, and waiting does not refill it.
    let detail = answer
        .pointer("/error/details/error_code")
        .or(answer.pointer("/error/code"));
    let spent = detail
        .and_then(Value::as_str)
        .is_some_and(|c| matches!(c, "enforced_spend_limit_reached" | "insufficient_quota"));
    let wait = || {
        retry_after
            .unwrap_or_else(|| backoff(attempt, policy))
            .min(policy.longest_wait)
    };
    match status {
        429 if spent => Verdict::Fail(format!("{said} (a spent quota: trying again cannot help)")),
        408 | 409 | 429 | 500 | 502 | 503 | 504 | 529 => Verdict::Again(wait(), said),
        _ => Verdict::Fail(said),
    }
}

/// The wait before attempt `attempt + 1` when the provider named none: doubling from the
/// first wait, with jitter so that parallel runs do not retry in step.
fn backoff(attempt: u32, policy: &RetryPolicy) -> Duration {
    let base = policy
        .first_wait
        .saturating_mul(1 << attempt.clamp(1, 16).saturating_sub(1));
    if base.is_zero() {
        return base;
    }
    let jitter = u64::from(std::process::id().wrapping_add(attempt.wrapping_mul(7919)) % 250);
    (base + Duration::from_millis(jitter)).min(policy.longest_wait)
}

/// An error with its causes, one line.
fn error_chain(e: &dyn std::error::Error) -> String {
    let mut words = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        words.push_str(": ");
        words.push_str(&s.to_string());
        source = s.source();
    }
    words
}

/// `text` cut at `max` characters, with the count of what was left out.
pub(crate) fn cut(text: &str, max: usize) -> String {
    let count = text.chars().count();
    if count <= max {
        return text.to_string();
    }
    let kept: String = text.chars().take(max).collect();
    format!("{kept}... ({} more characters)", count - max)
}
