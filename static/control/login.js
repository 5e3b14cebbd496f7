// The login page: only the language switch (the form itself works without scripts).
import { pageConfig, wireLanguage } from "./common.js";

wireLanguage(pageConfig().lang);
