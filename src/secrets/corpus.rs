//! A labelled corpus for the secret rules (test-only): credentials in the forms the leading
//! secret scanners' rule sets and public fixtures describe — prefixes, lengths, alphabets and the
//! files they sit in (env, JSON, YAML, INI, code, Kubernetes manifests, kubeconfig, `PuTTY` keys) —
//! and the harmless look-alikes that must not block (documented example keys, placeholders,
//! paths, hashes, ids, encoded non-secrets). Every value is generated from a seed at test time,
//! so no whole secret is written in the source.

/// One labelled text.
pub(crate) struct Case {
    /// The rule family the case exercises (for the per-family report).
    pub family: &'static str,
    /// The file name it sits in.
    pub path: &'static str,
    /// The content.
    pub text: String,
    /// Whether it holds a real-looking secret (a finding is expected) or not (none is).
    pub secret: bool,
}

const UPPER_DIGITS: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
const ALNUM: &[u8] = b"aZ3kQ9xW2mP7vB5nR8tY4uC6iD1oE0fGhJlLsSdKcVbNqTw";
const HEX: &[u8] = b"0123456789abcdef";
const B64: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const URLSAFE: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/// `n` characters of `alphabet`, spread by `seed` (deterministic, not repetitive).
pub(crate) fn token(alphabet: &[u8], n: usize, seed: u64) -> String {
    let mut state = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
    (0..n)
        .map(|_| {
            state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            let i = usize::try_from(state >> 33).unwrap_or(0) % alphabet.len();
            char::from(alphabet[i])
        })
        .collect()
}

/// Standard base64 of `bytes`.
pub(crate) fn base64(bytes: &[u8]) -> String {
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let b = [chunk[0], *chunk.get(1).unwrap_or(&0), *chunk.get(2).unwrap_or(&0)];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for (k, shift) in [18, 12, 6, 0].into_iter().enumerate() {
            if k <= chunk.len() {
                out.push(char::from(B64[usize::try_from((n >> shift) & 63).unwrap_or(0)]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// The contexts a labelled value is written in: `(file, text)` for a key name and a value.
fn contexts(key: &str, value: &str) -> Vec<(&'static str, String)> {
    vec![
        (".env", format!("{key}={value}\n")),
        ("config.json", format!("{{\n  \"{key}\": \"{value}\"\n}}\n")),
        ("config.yaml", format!("app:\n  {key}: {value}\n")),
        ("settings.py", format!("{key} = \"{value}\"\n")),
        ("app.ini", format!("[auth]\n{key} = {value}\n")),
    ]
}

fn add(out: &mut Vec<Case>, family: &'static str, path: &'static str, text: String, secret: bool) {
    out.push(Case { family, path, text, secret });
}

/// Every labelled case.
#[expect(clippy::too_many_lines, reason = "one table of forms, read top to bottom")]
pub(crate) fn cases() -> Vec<Case> {
    let mut out = Vec::new();
    let mut seed = 0u64;
    let mut next = || {
        seed += 1;
        seed
    };
    // Token forms with a fixed prefix: each in every context, and bare in prose.
    let prefixed: Vec<(&'static str, String)> = vec![
        ("aws", format!("AKIA{}", token(UPPER_DIGITS, 16, next()))),
        ("aws", format!("ASIA{}", token(UPPER_DIGITS, 16, next()))),
        ("github", format!("ghp_{}", token(ALNUM, 36, next()))),
        ("github", format!("gho_{}", token(ALNUM, 36, next()))),
        ("github", format!("ghs_{}", token(ALNUM, 36, next()))),
        ("github", format!("github_pat_{}", token(ALNUM, 82, next()))),
        ("gitlab", format!("glpat-{}", token(URLSAFE, 20, next()))),
        ("gitlab", format!("glrt-{}", token(URLSAFE, 20, next()))),
        ("gitlab", format!("gldt-{}", token(URLSAFE, 20, next()))),
        (
            "slack",
            format!(
                "xoxb-{}-{}-{}",
                token(b"0123456789", 12, next()),
                token(b"0123456789", 13, next()),
                token(ALNUM, 24, next())
            ),
        ),
        ("slack", format!("xoxp-{}-{}", token(b"0123456789", 12, next()), token(ALNUM, 32, next()))),
        (
            "slack",
            format!(
                "xapp-1-A{}-{}-{}",
                token(UPPER_DIGITS, 10, next()),
                token(b"0123456789", 13, next()),
                token(HEX, 64, next())
            ),
        ),
        ("stripe", format!("sk_live_{}", token(ALNUM, 24, next()))),
        ("stripe", format!("rk_live_{}", token(ALNUM, 30, next()))),
        ("google", format!("AIza{}", token(URLSAFE, 35, next()))),
        ("google", format!("GOCSPX-{}", token(URLSAFE, 28, next()))),
        ("ai", format!("sk-proj-{}", token(URLSAFE, 48, next()))),
        ("ai", format!("sk-ant-api03-{}", token(URLSAFE, 93, next()))),
        ("ai", format!("hf_{}", token(ALNUM, 34, next()))),
        ("registry", format!("npm_{}", token(ALNUM, 36, next()))),
        ("registry", format!("pypi-AgEIcHlwaS5vcmc{}", token(URLSAFE, 60, next()))),
        ("saas", format!("SG.{}.{}", token(URLSAFE, 22, next()), token(URLSAFE, 43, next()))),
        ("saas", format!("SK{}", token(HEX, 32, next()))),
        ("saas", format!("dop_v1_{}", token(HEX, 64, next()))),
        (
            "jwt",
            format!(
                "eyJ{}.eyJ{}.{}",
                token(URLSAFE, 30, next()),
                token(URLSAFE, 60, next()),
                token(URLSAFE, 43, next())
            ),
        ),
    ];
    for (family, value) in &prefixed {
        for (path, text) in contexts("credential", value) {
            add(&mut out, family, path, text, true);
        }
        add(&mut out, family, "NOTES.md", format!("Use {value} for the staging account.\n"), true);
    }
    // Labelled secrets without a prefix: only the label says what they are.
    let labelled: Vec<(&'static str, &'static str, String)> = vec![
        ("aws", "aws_secret_access_key", token(B64, 40, next())),
        ("aws", "AWS_SECRET_ACCESS_KEY", token(B64, 40, next())),
        ("aws", "SecretAccessKey", token(B64, 40, next())),
        ("twilio", "TWILIO_AUTH_TOKEN", token(HEX, 32, next())),
        ("twilio", "twilio_api_secret", token(ALNUM, 32, next())),
        ("generic", "password", token(ALNUM, 20, next())),
        ("generic", "DB_PASSWORD", token(ALNUM, 16, next())),
        ("generic", "client_secret", token(URLSAFE, 40, next())),
        ("generic", "api_key", token(HEX, 40, next())),
        ("generic", "auth_token", token(ALNUM, 32, next())),
        ("generic", "SECRET_KEY", token(B64, 50, next())),
    ];
    for (family, key, value) in &labelled {
        for (path, text) in contexts(key, value) {
            add(&mut out, family, path, text, true);
        }
    }
    // Keys in files.
    let pem_body = base64(token(ALNUM, 600, next()).as_bytes());
    for kind in ["RSA ", "EC ", "OPENSSH ", ""] {
        add(
            &mut out,
            "private-key",
            "id_key",
            format!(
                "-----BEGIN {kind}PRIVATE KEY-----\n{}\n-----END {kind}PRIVATE KEY-----\n",
                &pem_body[..64]
            ),
            true,
        );
    }
    add(
        &mut out,
        "private-key",
        "server.ppk",
        format!(
            "PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nComment: deploy\nPublic-Lines: 2\n{}\nPrivate-Lines: 1\n{}\nPrivate-MAC: {}\n",
            token(B64, 64, next()),
            token(B64, 64, next()),
            token(HEX, 64, next())
        ),
        true,
    );
    let key_pem =
        format!("-----BEGIN RSA PRIVATE KEY-----\n{}\n-----END RSA PRIVATE KEY-----\n", &pem_body[..64]);
    add(
        &mut out,
        "private-key",
        "kubeconfig",
        format!(
            "apiVersion: v1\nkind: Config\nusers:\n- name: admin\n  user:\n    client-certificate-data: {}\n    client-key-data: {}\n",
            token(B64, 80, next()),
            base64(key_pem.as_bytes())
        ),
        true,
    );
    // Kubernetes Secrets: their data values are base64 of the secret.
    for i in 0..4 {
        let password = token(ALNUM, 16 + i, next());
        let api = token(HEX, 32, next());
        add(
            &mut out,
            "kubernetes",
            "secret.yaml",
            format!(
                "apiVersion: v1\nkind: Secret\nmetadata:\n  name: app-{i}\ntype: Opaque\ndata:\n  password: {}\n  api-key: {}\n",
                base64(password.as_bytes()),
                base64(api.as_bytes())
            ),
            true,
        );
    }
    // A base64 secret that happens to start with `/` is not a path.
    for i in 0..3 {
        let value = format!("/{}+{}=", token(B64, 30, next()), token(ALNUM, 10 + i, next()));
        for (path, text) in contexts("SECRET_KEY", &value) {
            add(&mut out, "generic", path, text, true);
        }
    }
    // A Kubernetes Secret holding binary data (a keystore): a secret all the same.
    let binary: Vec<u8> = (0u8..48).map(|b| b.wrapping_mul(37).wrapping_add(0x80)).collect();
    add(
        &mut out,
        "kubernetes",
        "keystore-secret.yaml",
        format!(
            "apiVersion: v1\nkind: Secret\nmetadata:\n  name: ks\ndata:\n  keystore.p12: {}\n",
            base64(&binary)
        ),
        true,
    );
    // URLs with a password.
    for scheme in ["postgres", "mysql", "redis", "amqp"] {
        add(
            &mut out,
            "url-password",
            "docker-compose.yml",
            format!(
                "    environment:\n      DATABASE_URL: {scheme}://app:{}@db.internal:5432/app\n",
                token(ALNUM, 18, next())
            ),
            true,
        );
    }
    add(
        &mut out,
        "azure",
        "appsettings.json",
        format!(
            "{{\"Storage\": \"DefaultEndpointsProtocol=https;AccountName=acct;AccountKey={}==;EndpointSuffix=core.windows.net\"}}\n",
            token(B64, 86, next())
        ),
        true,
    );
    add(
        &mut out,
        "slack",
        "notify.sh",
        format!(
            "curl -X POST https://hooks.slack.com/services/T{}/B{}/{}\n",
            token(UPPER_DIGITS, 8, next()),
            token(UPPER_DIGITS, 10, next()),
            token(ALNUM, 24, next())
        ),
        true,
    );

    // Harmless look-alikes.
    for (path, text) in contexts("aws_access_key_id", "AKIAIOSFODNN7EXAMPLE") {
        add(&mut out, "aws", path, text, false);
    }
    for (path, text) in contexts("aws_secret_access_key", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY") {
        add(&mut out, "aws", path, text, false);
    }
    for placeholder in [
        format!("ghp_{}", "x".repeat(36)),
        format!("ghp_{}", "X".repeat(36)),
        format!("glpat-{}", "x".repeat(20)),
        format!("sk_live_{}", "0".repeat(24)),
        format!("xoxb-{}", "x".repeat(40)),
        "AIzaSyXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX".to_owned(),
    ] {
        for (path, text) in contexts("token", &placeholder) {
            add(&mut out, "placeholder", path, text, false);
        }
    }
    for value in [
        "your-api-key-here",
        "<YOUR_TOKEN>",
        "${DB_PASSWORD}",
        "{{ .Values.password }}",
        "changeme",
        "********",
        "os.environ['API_KEY']",
        "test-token",
        "secret",
        "REPLACE_WITH_YOUR_KEY",
    ] {
        for (path, text) in contexts("api_key", value) {
            add(&mut out, "placeholder", path, text, false);
        }
    }
    for (key, value) in [
        ("private_key", "/etc/ssl/private/server.pem"),
        ("private_key_path", "./certs/client-key.pem"),
        ("token_file", "~/.config/app/credentials.json"),
        ("secret_file", "/run/secrets/db_password"),
        ("ssh_private_key", "C:\\Users\\deploy\\.ssh\\id_ed25519"),
    ] {
        for (path, text) in contexts(key, value) {
            add(&mut out, "path", path, text, false);
        }
    }
    for i in 0..20 {
        let sha = token(HEX, 40, next());
        add(&mut out, "hash", "CHANGELOG.md", format!("- fix the parser ({sha})\n"), false);
        add(
            &mut out,
            "hash",
            "config.yaml",
            format!("image:\n  digest: sha256:{}\n", token(HEX, 64, next())),
            false,
        );
        if i < 10 {
            add(
                &mut out,
                "hash",
                "package-lock.json",
                format!("    \"integrity\": \"sha512-{}==\",\n", token(B64, 86, next())),
                false,
            );
            let uuid = format!(
                "{}-{}-4{}-a{}-{}",
                token(HEX, 8, next()),
                token(HEX, 4, next()),
                token(HEX, 3, next()),
                token(HEX, 3, next()),
                token(HEX, 12, next())
            );
            add(&mut out, "id", "config.json", format!("{{\"request_id\": \"{uuid}\"}}\n"), false);
            add(
                &mut out,
                "id",
                "go.sum",
                format!("golang.org/x/text v0.3.{i} h1:{}=\n", token(B64, 43, next())),
                false,
            );
        }
    }
    for code in [
        "token = next_token_value\n",
        "password = get_password(user)\n",
        "secret_name: my-app-secret\n",
        "password_field: password_hash\n",
        "SECRET_KEY_BASE = ENV.fetch(\"SECRET_KEY_BASE\")\n",
        "api_key = api_key or settings.API_KEY\n",
        "const token = await getToken(request.headers.authorization);\n",
        "DATABASE_URL=postgres://localhost:5432/app\n",
        "DATABASE_URL=postgres://app:${DB_PASSWORD}@db:5432/app\n",
        "url = \"https://user@example.com/repo.git\"\n",
        "# Set PASSWORD in your environment before running.\n",
        "if token_type == \"Bearer\":\n",
    ] {
        add(&mut out, "code", "app.py", code.to_owned(), false);
    }
    for i in 0..6 {
        add(
            &mut out,
            "encoded",
            "configmap.yaml",
            format!(
                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web-{i}\nbinaryData:\n  logo.png: {}\n",
                base64(token(ALNUM, 90, next()).as_bytes())
            ),
            false,
        );
    }
    add(
        &mut out,
        "kubernetes",
        "secret.yaml",
        "apiVersion: v1\nkind: Secret\nmetadata:\n  name: app\nstringData:\n  password: changeme\n  username: admin\n".to_owned(),
        false,
    );
    add(
        &mut out,
        "kubernetes",
        "secret.yaml",
        format!(
            "apiVersion: v1\nkind: Secret\nmetadata:\n  name: app\ndata:\n  username: {}\n  password: {}\n",
            base64(b"admin"),
            base64(b"changeme")
        ),
        false,
    );
    add(
        &mut out,
        "private-key",
        "README.md",
        "Put the key between -----BEGIN PUBLIC KEY----- lines.\n".to_owned(),
        false,
    );
    add(
        &mut out,
        "private-key",
        "id_ed25519.pub",
        format!("ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAA{} deploy@host\n", token(B64, 43, next())),
        false,
    );
    out
}
