/** What a side panel shows while its diff view (Monaco, loaded with the first diff) arrives. */
export const DIFF_LOADING = <div className="side-loading">Loading the diff view…</div>
