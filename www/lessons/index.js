// Every lesson, in the order the Lesson menu lists them. A lesson is its list of steps; `intro`
// plays the S1 scenario.
import intro from "./intro.js";
import s1 from "./s1.js";
import s2 from "./s2.js";
import s3 from "./s3.js";
import s4 from "./s4.js";
import s5 from "./s5.js";
import s6 from "./s6.js";
import s7 from "./s7.js";
import s8 from "./s8.js";
import s9 from "./s9.js";
import s10 from "./s10.js";

intro.scenario = "S1";

export const LESSONS = { intro, S1: s1, S2: s2, S3: s3, S4: s4, S5: s5, S6: s6, S7: s7, S8: s8, S9: s9, S10: s10 };
export const LESSON_ORDER = Object.keys(LESSONS);
