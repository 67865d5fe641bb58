// @ts-check
// Whether the learner chose free play over the lessons, kept for the next visit.
const FREE_PLAY_KEY = "rmqsim.freePlay";

export function rememberFreePlay(on) {
  try {
    if (on) localStorage.setItem(FREE_PLAY_KEY, "1");
    else localStorage.removeItem(FREE_PLAY_KEY);
  } catch {
    // Storage may be off (private mode): the choice is simply not remembered.
  }
}

export function freePlayRemembered() {
  try {
    return localStorage.getItem(FREE_PLAY_KEY) === "1";
  } catch {
    return false;
  }
}
