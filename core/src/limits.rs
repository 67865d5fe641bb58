//! Size limits on what a peer may send: the codec checks frame and body sizes, the request
//! parser checks a registration's topic count, the server the KV budget. The layers read them
//! from here, so `protocol` does not import `codec`.

/// Size limits applied while decoding a frame and parsing a request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Largest frame accepted, counting the 4-byte length prefix (Java:
    /// `com.rocketmq.remoting.frameMaxLength`, default 16 MiB).
    pub max_frame: usize,
    /// Largest decompressed size of a compressed RegisterBrokerBody.
    pub max_decompressed: usize,
    /// Most topics one REGISTER_BROKER may carry; `None`: no limit, as in Java.
    pub max_register_topics: Option<usize>,
    /// Largest KV value a PUT_KV_CONFIG may set (`--max-kv-value-bytes`; Java: no limit).
    pub max_kv_value: usize,
    /// Largest KV table a PUT_KV_CONFIG may grow to, counted by `KvConfig::bytes`
    /// (`--max-kv-bytes`; Java: no limit).
    pub max_kv_bytes: usize,
}

impl Limits {
    /// Java's defaults: 16 MiB frames, any number of topics in a registration. Compressed
    /// bodies may inflate to 64 MiB (Java inflates without a bound; this one keeps a zip bomb
    /// from taking the memory), KV values 1 MiB and the KV table 16 MiB (Java has no bound:
    /// one client could fill the memory, the disk and the log).
    pub const DEFAULT: Self = Self {
        max_frame: 16 * 1024 * 1024,
        max_decompressed: 64 * 1024 * 1024,
        max_register_topics: None,
        max_kv_value: 1024 * 1024,
        max_kv_bytes: 16 * 1024 * 1024,
    };
}

/// Hashes the topic limit only when there is one, and the KV budget only when it is not the
/// default, so that states with the defaults hash as they did before these limits existed:
/// the simulation's golden state hashes cover every NameServer's limits.
impl core::hash::Hash for Limits {
    fn hash<H: core::hash::Hasher>(&self, state: &mut H) {
        self.max_frame.hash(state);
        self.max_decompressed.hash(state);
        if let Some(max) = self.max_register_topics {
            max.hash(state);
        }
        if (self.max_kv_value, self.max_kv_bytes) != (Self::DEFAULT.max_kv_value, Self::DEFAULT.max_kv_bytes) {
            (self.max_kv_value, self.max_kv_bytes).hash(state);
        }
    }
}

impl Default for Limits {
    fn default() -> Self {
        Self::DEFAULT
    }
}
