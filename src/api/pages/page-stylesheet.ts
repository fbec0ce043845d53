/**
 * The one stylesheet of the account pages, inlined in each page. The
 * Content-Security-Policy allows exactly this text by its hash.
 */
export const pageStylesheet = `
*,*::before,*::after{box-sizing:border-box}
html{color-scheme:light dark}
body{margin:0;padding:2rem 1rem;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,Helvetica,Arial,sans-serif;background:#f4f5f7;color:#1f2328}
main{max-width:28rem;margin:0 auto;padding:1.5rem;background:#fff;border-radius:8px;box-shadow:0 1px 3px rgba(0,0,0,.12)}
h1{font-size:1.375rem;margin:0 0 1rem}
.app{margin:0 0 .25rem;font-size:.875rem;color:#57606a}
.error{padding:.5rem .75rem;border-radius:6px;background:#ffebe9;color:#82071e}
.ok{color:#1a7f37}
form{display:grid;gap:.75rem}
label{font-weight:600}
input{width:100%;padding:.5rem .625rem;font:inherit;border:1px solid #8c959f;border-radius:6px}
input:focus{outline:2px solid #0b5fff;outline-offset:1px}
button{display:inline-block;padding:.625rem 1rem;font:inherit;font-weight:600;color:#fff;background:#0b5fff;border:0;border-radius:6px;cursor:pointer;text-decoration:none}
.hint{margin:0;font-size:.875rem;color:#57606a}
@media (prefers-color-scheme:dark){body{background:#0d1117;color:#e6edf3}main{background:#161b22}.app,.hint{color:#8d96a0}input{background:#0d1117;color:inherit}}
`;
