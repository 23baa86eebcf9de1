'use client';
import { createContext, useContext, useMemo, type ReactNode } from 'react';
import { translator, type Locale, type Translate } from '../i18n/catalog.ts';

const I18nContext = createContext<{ locale: Locale; t: Translate }>({ locale: 'en', t: translator('en') });

export function I18nProvider({ locale, children }: { locale: Locale; children: ReactNode }) {
  const value = useMemo(() => ({ locale, t: translator(locale) }), [locale]);
  return <I18nContext value={value}>{children}</I18nContext>;
}

export function useI18n() {
  return useContext(I18nContext);
}
