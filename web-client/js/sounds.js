// Opt-in sounds, off by default: short tones made with WebAudio (no files), played when it
// becomes my turn, when sealed moves are revealed and when a trick is won. The choice is kept
// in this browser. `played` lists what was played (the browser tests read it).

const KEY = "tortuga.sounds";
export const played = [];
let audio = null;

export function enabled() {
  try {
    return localStorage.getItem(KEY) === "1";
  } catch {
    return false;
  }
}

export function setEnabled(on) {
  try {
    localStorage.setItem(KEY, on ? "1" : "0");
  } catch {
    /* private mode: off */
  }
  if (on) play("turn");  // a sample, and the user's click lets the page make sound
}

// Each sound: notes of [frequency Hz, start s, length s].
const TUNES = {
  turn: [[660, 0, 0.12], [880, 0.13, 0.16]],
  reveal: [[523, 0, 0.08], [659, 0.09, 0.08], [784, 0.18, 0.14]],
  trick: [[392, 0, 0.1], [587, 0.11, 0.18]],
};

/** Play `kind` ("turn", "reveal", "trick") if sounds are on. */
export function play(kind) {
  if (!enabled() || !TUNES[kind]) return;
  played.push(kind);
  const Ctx = window.AudioContext || window.webkitAudioContext;
  if (!Ctx) return;
  try {
    audio = audio || new Ctx();
    const now = audio.currentTime + 0.02;
    for (const [freq, at, len] of TUNES[kind]) {
      const osc = audio.createOscillator();
      const gain = audio.createGain();
      osc.type = "triangle";
      osc.frequency.value = freq;
      gain.gain.setValueAtTime(0.0001, now + at);
      gain.gain.exponentialRampToValueAtTime(0.18, now + at + 0.02);
      gain.gain.exponentialRampToValueAtTime(0.0001, now + at + len);
      osc.connect(gain).connect(audio.destination);
      osc.start(now + at);
      osc.stop(now + at + len + 0.02);
    }
  } catch {
    /* no audio here: nothing to play */
  }
}
